/**
 * What a caller may learn and touch (MCP 2025-11-25 security best practices): with API-key
 * auth, items only `admin` may see answer another key exactly as absent ones, by completion,
 * read, get and call, on both wires; a subscription to a hidden resource is acknowledged but
 * never recorded; completion looks argument names up as own properties only; and a 2025-wire
 * session answers 404 to any identity but the one that opened it (POST, GET, DELETE).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Message, post, req, type TestApp, V2025 } from '../transports/http-helpers.ts';
import {
  admin,
  buildHiddenApp,
  call as callOn,
  errorShape,
  guest,
  open as openOn,
} from './hidden-helpers.ts';

let t: TestApp;
before(async () => {
  t = await buildHiddenApp();
});
after(() => t?.close());
const open = (headers: Record<string, string>) => openOn(t, headers);
const call = (
  wire: '2025' | '2026',
  headers: Record<string, string>,
  method: string,
  params: Message,
  session?: string,
) => callOn(t, wire, headers, method, params, session);

for (const wire of ['2025', '2026'] as const) {
  describe(`a hidden item answers as an absent one (${wire} wire)`, () => {
    let guestSession: string | undefined;
    let adminSession: string | undefined;
    before(async () => {
      if (wire === '2025') {
        guestSession = await open(guest);
        adminSession = await open(admin);
      }
    });

    const cases: [string, (name: string) => Message, string, string][] = [
      [
        'completion of a prompt',
        (n) => ({ ref: { type: 'ref/prompt', name: n }, argument: { name: 'topic', value: 'p' } }),
        'secret_prompt',
        'no_such_prompt',
      ],
      [
        'completion of a template',
        (n) => ({ ref: { type: 'ref/resource', uri: n }, argument: { name: 'id', value: '' } }),
        'secret://docs/{id}',
        'nothing://here/{id}',
      ],
      ['resources/read of a resource', (n) => ({ uri: n }), 'secret://config', 'secret://absent'],
      [
        'resources/read of a template match',
        (n) => ({ uri: n }),
        'secret://docs/salaries',
        'nothing://docs/salaries',
      ],
      ['prompts/get', (n) => ({ name: n }), 'secret_prompt', 'no_such_prompt'],
      ['tools/call', (n) => ({ name: n, arguments: {} }), 'secret_tool', 'no_such_tool'],
    ];
    for (const [what, params, hidden, absent] of cases) {
      const method = what.startsWith('completion') ? 'completion/complete' : what.split(' ')[0]!;
      test(what, async () => {
        const seen = await call(wire, guest, method, params(hidden), guestSession);
        const none = await call(wire, guest, method, params(absent), guestSession);
        assert.deepEqual(errorShape(seen, hidden), errorShape(none, absent));
        const allowed = await call(wire, admin, method, params(hidden), adminSession);
        assert.ok(allowed.body.result, `admin is served: ${JSON.stringify(allowed.body)}`);
      });
    }

    for (const name of ['constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty']) {
      test(`completion argument ${name} is looked up as an own property`, async () => {
        const answer = await call(
          wire,
          guest,
          'completion/complete',
          { ref: { type: 'ref/resource', uri: 'test://items/{id}' }, argument: { name, value: '' } },
          guestSession,
        );
        const completion = (answer.body.result as { completion?: { values?: unknown } } | undefined)
          ?.completion;
        assert.deepEqual(completion?.values, [], JSON.stringify(answer.body));
      });
    }
  });
}

describe('subscriptions (2025 wire)', () => {
  test('a subscription to a hidden resource is acknowledged as any other and never recorded', async () => {
    const session = await open(guest);
    for (const uri of ['secret://config', 'secret://docs/keys', 'test://hello']) {
      const answer = await call('2025', guest, 'resources/subscribe', { uri }, session);
      assert.deepEqual(answer.body.result, {}, uri);
    }
    const stored = await t.server.sessions.get(session);
    assert.deepEqual([...(stored?.subscriptions ?? [])], ['test://hello']);
  });
});

describe('sessions are bound to the identity that opened them', () => {
  test('another key gets 404 on POST, GET and DELETE, as for an unknown session; the owner keeps it', async () => {
    const session = await open(admin);
    const unknown = await post(t.app, req(2, 'ping'), {
      session: 'no-such-session',
      version: V2025,
      headers: guest,
    });
    assert.equal(unknown.statusCode, 404);
    for (const message of [
      req(2, 'ping'),
      req(3, 'logging/setLevel', { level: 'debug' }),
      req(4, 'tools/list'),
    ]) {
      const res = await post(t.app, message, { session, version: V2025, headers: guest });
      assert.equal(res.statusCode, 404, res.body);
      assert.deepEqual(
        (JSON.parse(res.body) as { error: unknown }).error,
        (JSON.parse(unknown.body) as { error: unknown }).error,
      );
    }
    const get = await t.app.inject({
      method: 'GET',
      url: '/mcp',
      headers: {
        ...guest,
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': V2025,
      },
    });
    assert.equal(get.statusCode, 404, get.body);
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/mcp',
      headers: { ...guest, 'mcp-session-id': session, 'mcp-protocol-version': V2025 },
    });
    assert.equal(del.statusCode, 404, del.body);
    const still = await post(t.app, req(5, 'ping'), { session, version: V2025, headers: admin });
    assert.equal(still.statusCode, 200, still.body);
    const own = await t.app.inject({
      method: 'DELETE',
      url: '/mcp',
      headers: { ...admin, 'mcp-session-id': session, 'mcp-protocol-version': V2025 },
    });
    assert.ok(own.statusCode < 300, own.body);
  });
});
