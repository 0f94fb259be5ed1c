/**
 * Streamable HTTP on the 2025 wire (MCP 2025-11-25 "Transports", docs/internals/conformance-fixture.md §2):
 * sessions, JSON and SSE replies, 202s, the GET stream's refusals, 405, batches by version,
 * the session cap and idle expiry, concurrency, the per-call timeout and cancellation.
 * Every JSON-RPC message is validated against the spec schema of the negotiated revision.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../src/base/errors.ts';
import { createMemorySessionStore } from '../../src/protocol/session/store.ts';
import { assertValidServerMessage } from '../helpers/spec-schema.ts';
import { until } from '../helpers/until.ts';
import {
  buildTestApp,
  expectError,
  jsonReply,
  type Message,
  openSession,
  parseSse,
  post,
  req,
  sseMessages,
  type TestApp,
  V2025,
} from './http-helpers.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

describe('sessions', () => {
  test('initialize answers 200 with an Mcp-Session-Id of visible ASCII', async () => {
    const res = await post(
      t.app,
      req(1, 'initialize', {
        protocolVersion: V2025,
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      }),
    );
    assert.equal(res.statusCode, 200);
    const body = jsonReply(res, V2025, 'initialize');
    assert.equal(body.id, 1);
    assert.match(String(res.headers['mcp-session-id']), /^[\x21-\x7E]+$/);
  });

  test('a request without a session is 400, with an unknown one 404, each echoing the id', async () => {
    expectError(await post(t.app, req(7, 'tools/list')), 400, ErrorCode.BadRequest, 7);
    expectError(
      await post(t.app, req('x', 'tools/list'), { session: 'nope' }),
      404,
      ErrorCode.SessionNotFound,
      'x',
    );
  });

  test('DELETE ends the session: 200, then 404 for it on every method', async () => {
    const session = await openSession(t.app);
    const del = await t.app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': session } });
    assert.equal(del.statusCode, 200);
    expectError(await post(t.app, req(2, 'tools/list'), { session }), 404, ErrorCode.SessionNotFound, 2);
    const again = await t.app.inject({
      method: 'DELETE',
      url: '/mcp',
      headers: { 'mcp-session-id': session },
    });
    expectError(again, 404, ErrorCode.SessionNotFound, null);
    const none = await t.app.inject({ method: 'DELETE', url: '/mcp' });
    expectError(none, 400, ErrorCode.BadRequest, null);
  });

  test('notifications and posted responses are answered 202 with no body', async () => {
    const session = await openSession(t.app);
    const note = await post(
      t.app,
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { session },
    );
    assert.equal(note.statusCode, 202);
    assert.equal(note.body, '');
    const response = await post(t.app, { jsonrpc: '2.0', id: 'srv-1', result: {} }, { session });
    assert.equal(response.statusCode, 202);
    assert.equal(response.body, '');
  });

  test('the open-sessions cap refuses the next initialize with 503 and a JSON-RPC error', async () => {
    const capped = await buildTestApp({ MCP_MAX_SESSIONS: '2' });
    try {
      await openSession(capped.app);
      await openSession(capped.app);
      const third = await post(
        capped.app,
        req(3, 'initialize', {
          protocolVersion: V2025,
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
        }),
      );
      expectError(third, 503, ErrorCode.TooManySessions, 3);
      assert.equal(third.headers['mcp-session-id'], undefined);
    } finally {
      await capped.close();
    }
  });

  test('an idle session expires: 404 after MCP_SESSION_IDLE_MS without a request', async () => {
    let now = 1_000_000;
    const sessions = createMemorySessionStore({ idleMs: 1000, maxSessions: 10, now: () => now });
    const idle = await buildTestApp({ MCP_SESSION_IDLE_MS: '1000' }, { sessions });
    try {
      const session = await openSession(idle.app);
      now += 900;
      assert.equal((await post(idle.app, req(1, 'ping'), { session })).statusCode, 200);
      now += 900; // 900 ms since the last request: still alive
      assert.equal((await post(idle.app, req(2, 'ping'), { session })).statusCode, 200);
      now += 1001;
      expectError(await post(idle.app, req(3, 'ping'), { session }), 404, ErrorCode.SessionNotFound, 3);
    } finally {
      await idle.close();
    }
  });
});

describe('replies', () => {
  test('a plain call is answered with JSON', async () => {
    const session = await openSession(t.app);
    const res = await post(t.app, req(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }), {
      session,
    });
    assert.equal(res.statusCode, 200);
    const body = jsonReply(res, V2025, 'tools/call');
    assert.deepEqual((body.result as Message).content, [{ type: 'text', text: 'hi' }]);
  });

  test('a call that emits progress is answered with SSE: priming event, progress, then the result', async () => {
    const session = await openSession(t.app);
    const res = await post(
      t.app,
      req(2, 'tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'tok' } }),
      { session, version: V2025 },
    );
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/event-stream/);
    assert.equal(res.headers['mcp-session-id'], session);
    const events = parseSse(res.body);
    // Priming event (2025-11-25, SEP-1699): an id, empty data and a retry hint.
    const [prime] = events;
    assert.ok(prime?.id, 'the priming event has an id');
    assert.equal(prime.data, '');
    assert.equal(prime.retry, t.settings.MCP_SSE_RETRY_MS);
    assert.ok(
      events.every((e) => e.id),
      'every event of a resumable stream has an id',
    );
    const messages = sseMessages(events, V2025, 'tools/call');
    assert.deepEqual(
      messages
        .filter((m) => m.method === 'notifications/progress')
        .map((m) => (m.params as Message).progress),
      [0, 50, 100],
    );
    const last = messages.at(-1)!;
    assert.equal(last.id, 2, 'the result comes last');
    assert.deepEqual((last.result as Message).content, [{ type: 'text', text: 'finished' }]);
  });

  test('on 2025-03-26 the SSE reply has no priming event', async () => {
    const session = await openSession(t.app, '2025-03-26');
    const res = await post(
      t.app,
      req(3, 'tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 7 } }),
      { session },
    );
    assert.match(String(res.headers['content-type']), /^text\/event-stream/);
    const events = parseSse(res.body);
    assert.ok(events.every((e) => e.data !== ''));
    const messages = sseMessages(events, '2025-03-26', 'tools/call');
    assert.equal(messages.filter((m) => m.method === 'notifications/progress').length, 3);
    assert.equal(messages.at(-1)!.id, 3);
  });

  test('a client that accepts JSON only gets the result as JSON', async () => {
    const session = await openSession(t.app);
    const res = await post(
      t.app,
      req(4, 'tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'tok' } }),
      { session, accept: 'application/json' },
    );
    assert.equal(res.statusCode, 200);
    assert.equal(jsonReply(res, V2025, 'tools/call').id, 4);
  });

  test('GET without a session is 400, for an unknown one 404, without text/event-stream 406', async () => {
    const get = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/mcp', headers });
    expectError(await get({ accept: 'text/event-stream' }), 400, ErrorCode.BadRequest, null);
    expectError(
      await get({ accept: 'text/event-stream', 'mcp-session-id': 'nope' }),
      404,
      ErrorCode.SessionNotFound,
      null,
    );
    const session = await openSession(t.app);
    expectError(
      await get({ accept: 'application/json', 'mcp-session-id': session }),
      406,
      ErrorCode.NotAcceptable,
      null,
    );
  });

  test('an invalid JSON-RPC request is 400 / -32600, echoing its id', async () => {
    const session = await openSession(t.app);
    const res = await post(t.app, { jsonrpc: '1.0', id: 5, method: 'ping' }, { session });
    expectError(res, 400, ErrorCode.InvalidRequest, 5);
  });

  test('PUT is 405 with Allow', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: '/mcp',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expectError(res, 405, ErrorCode.MethodNotAllowed, null);
    assert.equal(res.headers.allow, 'GET, POST, DELETE');
  });
});

describe('batches follow the negotiated version', () => {
  test('2025-03-26: an array reply without the notifications; all notifications → 202', async () => {
    const session = await openSession(t.app, '2025-03-26');
    const res = await post(
      t.app,
      [
        req(1, 'tools/list'),
        { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
        req('two', 'ping'),
        req(3, 'no/such/method'),
      ],
      { session },
    );
    assert.equal(res.statusCode, 200);
    const batch = JSON.parse(res.body) as Message[];
    assert.ok(Array.isArray(batch));
    assert.deepEqual(batch.map((m) => m.id).sort(), [1, 3, 'two'].sort());
    const byId = new Map(batch.map((m) => [m.id, m]));
    const methods = new Map<unknown, string>([
      [1, 'tools/list'],
      ['two', 'ping'],
      [3, 'no/such/method'],
    ]);
    for (const m of batch)
      assertValidServerMessage('2025-03-26', m, 'error' in m ? undefined : methods.get(m.id));
    assert.deepEqual(byId.get('two')!.result, {});
    assert.equal((byId.get(3)!.error as Message).code, ErrorCode.MethodNotFound);
    const notes = await post(
      t.app,
      [
        { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
      ],
      { session },
    );
    assert.equal(notes.statusCode, 202);
    assert.equal(notes.body, '');
  });

  test('2025-03-26: an empty batch and one over MCP_MAX_BATCH are refused with -32600', async () => {
    const small = await buildTestApp({ MCP_MAX_BATCH: '2' });
    try {
      const session = await openSession(small.app, '2025-03-26');
      expectError(await post(small.app, [], { session }), 400, ErrorCode.InvalidRequest, null);
      const three = [req(1, 'ping'), req(2, 'ping'), req(3, 'ping')];
      expectError(await post(small.app, three, { session }), 400, ErrorCode.InvalidRequest, null);
      assert.equal((await post(small.app, three.slice(0, 2), { session })).statusCode, 200);
    } finally {
      await small.close();
    }
  });

  test('2025-11-25: a batch is refused with -32600', async () => {
    const session = await openSession(t.app);
    const res = await post(t.app, [req(1, 'ping'), req(2, 'ping')], { session });
    expectError(res, 400, ErrorCode.InvalidRequest, null);
  });
});

describe('calls in flight', () => {
  test('three concurrent POSTs on one session over a real socket are all 2xx', async () => {
    const app = await buildTestApp();
    try {
      const url = await app.listen();
      const session = await openSession(app.app);
      const responses = await Promise.all(
        [1, 2, 3].map((id) =>
          fetch(url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-session-id': session,
              'mcp-protocol-version': V2025,
            },
            body: JSON.stringify(req(id, 'tools/list')),
          }),
        ),
      );
      assert.deepEqual(
        responses.map((r) => r.status),
        [200, 200, 200],
      );
      const bodies = (await Promise.all(responses.map((r) => r.json()))) as Message[];
      assert.deepEqual(
        bodies.map((b) => b.id),
        [1, 2, 3],
      );
    } finally {
      await app.close();
    }
  });

  test('a client that hangs up aborts its call (nothing left in flight)', async () => {
    const app = await buildTestApp();
    try {
      const url = await app.listen();
      const session = await openSession(app.app);
      const controller = new AbortController();
      const pending = fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'mcp-session-id': session,
        },
        body: JSON.stringify(req(1, 'tools/call', { name: 'slow', arguments: { ms: 30_000 } })),
        signal: controller.signal,
      });
      await until(() => app.server.dispatcher.inflightCount > 0, { message: 'the slow call never started' });
      assert.equal(app.server.dispatcher.inflightCount, 1);
      controller.abort();
      await assert.rejects(pending);
      await until(() => app.server.dispatcher.inflightCount === 0, {
        message: 'the call went on running after its client went away',
      });
    } finally {
      await app.close();
    }
  });

  test('the per-call timeout answers an isError result saying it timed out', async () => {
    const app = await buildTestApp({ MCP_TOOL_TIMEOUT_MS: '50' });
    try {
      const session = await openSession(app.app);
      const res = await post(app.app, req(1, 'tools/call', { name: 'slow', arguments: { ms: 10_000 } }), {
        session,
      });
      assert.equal(res.statusCode, 200);
      const result = jsonReply(res, V2025, 'tools/call').result as Message;
      assert.equal(result.isError, true);
      const [text] = result.content as [{ type: string; text: string }];
      assert.match(text.text, /timed out after 50 ms/);
    } finally {
      await app.close();
    }
  });

  test('notifications/cancelled aborts a running call; its POST is answered -32603', async () => {
    const session = await openSession(t.app);
    const call = post(t.app, req('c1', 'tools/call', { name: 'slow', arguments: { ms: 15_000 } }), {
      session,
      accept: 'application/json',
    });
    // A cancel for a request not running yet is ignored: wait for the call to start.
    await until(() => t.server.dispatcher.inflightCount > 0, { message: 'the slow call never started' });
    const cancel = await post(
      t.app,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1', reason: 'user' } },
      { session },
    );
    assert.equal(cancel.statusCode, 202);
    const res = await call;
    const error = expectError(res, 200, ErrorCode.InternalError, 'c1');
    assert.match(error.message, /cancel/);
  });
});
