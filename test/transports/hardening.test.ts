/**
 * One request must never take the server down. Each case here crashed (or answered out of
 * shape) before: a deep `_meta.progressToken` echoed into a progress notification, a
 * `constructor` method echoing deep params, method names found on Object.prototype, a deep
 * body that overflowed the poison check, values JSON cannot carry, stray rejections and
 * throws in a plugin, and the refusals Fastify and Node made with their own JSON. Real
 * processes, real sockets and pipes.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../src/base/errors.ts';
import {
  type SpawnedHttpServer,
  type StdioPeer,
  spawnHttpServer,
  spawnStdioServer,
} from '../helpers/spawn-server.ts';
import { until } from '../helpers/until.ts';
import { buildTestApp } from './http-helpers.ts';

const HOSTILE = './test/transports/fixtures/hostile-plugin.ts';
const ECHO = './test/fixtures/echo-plugin.ts';
const V2025 = '2025-11-25';
const V2026 = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': V2026,
  'io.modelcontextprotocol/clientCapabilities': {},
};
const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
];

type Message = Record<string, unknown>;

/** `{ a: { a: ... { a: leaf } } }`, `depth` objects deep, built without recursion. */
function nested(depth: number, leaf: unknown = 1): Message {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value as Message;
}

/** The same nesting as JSON text, for bodies too deep for JSON.stringify. */
function nestedText(depth: number, leaf = '1'): string {
  return `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
}

function errorCode(message: Message): number {
  assert.ok(
    'error' in message && !('result' in message),
    `expected an error, got ${JSON.stringify(message)}`,
  );
  return (message.error as { code: number }).code;
}

describe('stdio', () => {
  let peer: StdioPeer;
  before(async () => {
    peer = spawnStdioServer({ MCP_PLUGINS: `${ECHO},${HOSTILE}` });
    const init = await peer.request({
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: V2025, capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    assert.ok('result' in init);
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  });
  after(() => peer.stop());

  /** Writes a line too deep for JSON.stringify and waits for the answer with `id`. */
  const rawRequest = (id: number, line: string) => {
    const from = peer.lines.length;
    peer.write(`${line}\n`);
    return peer.waitFor((m) => m.id === id, from);
  };

  test('a message nested past MCP_MAX_JSON_DEPTH gets -32600 with its id, before any handler', async () => {
    // `constructor` with 5,000-deep params crashed the process before initialize was even sent.
    const reply = await rawRequest(
      1,
      `{"jsonrpc":"2.0","id":1,"method":"constructor","params":${nestedText(5000)}}`,
    );
    assert.equal(errorCode(reply), ErrorCode.InvalidRequest);
    assert.match((reply.error as { message: string }).message, /MCP_MAX_JSON_DEPTH/);
    const deepToken = await rawRequest(
      2,
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":${nestedText(5000)}}}}`,
    );
    assert.equal(errorCode(deepToken), ErrorCode.InvalidRequest);
    // Just within the limit still works: 64 levels in all, counting the message itself.
    const within = await peer.request({
      id: 3,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'ok' }, _meta: { t: nested(61) } },
    });
    assert.ok('result' in within, JSON.stringify(within));
  });

  test('a deep notification is dropped without an answer, and the server goes on', async () => {
    const from = peer.lines.length;
    peer.write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":${nestedText(5000)}}\n`);
    const next = await peer.request({ id: 'after-deep-notification', method: 'ping' });
    assert.ok('result' in next);
    assert.equal(
      peer.lines.slice(from).filter((l) => !l.includes('after-deep-notification')).length,
      0,
      'nothing answered the notification',
    );
  });

  test('names found on Object.prototype are unknown methods on both wires', async () => {
    let n = 0;
    for (const method of PROTOTYPE_NAMES) {
      const legacy = await peer.request({ id: `p${n++}`, method, params: { x: 1 } });
      assert.equal(errorCode(legacy), ErrorCode.MethodNotFound, `${method} (2025)`);
      const modern = await peer.request({ id: `p${n++}`, method, params: { _meta: ENVELOPE } });
      assert.equal(errorCode(modern), ErrorCode.MethodNotFound, `${method} (2026)`);
    }
  });

  test('a result JSON cannot carry becomes -32603 for its id; a notification that cannot is dropped', async () => {
    const read = await peer.request({
      id: 'big',
      method: 'resources/read',
      params: { uri: 'hostile://bigint' },
    });
    assert.equal(errorCode(read), ErrorCode.InternalError);
    const notified = await peer.request({
      id: 'note',
      method: 'tools/call',
      params: { name: 'notify_bigint', arguments: {} },
    });
    assert.deepEqual((notified.result as { content: unknown }).content, [{ type: 'text', text: 'sent' }]);
    assert.match(peer.stderr(), /could not be serialised/);
  });

  test('a stray rejection in a plugin is logged and the server keeps serving', async () => {
    const reply = await peer.request({
      id: 'rej',
      method: 'tools/call',
      params: { name: 'stray_rejection', arguments: {} },
    });
    assert.ok('result' in reply);
    await until(() => peer.stderr().includes('unhandled promise rejection'), {
      message: 'the stray rejection was never logged',
    });
    assert.ok('result' in (await peer.request({ id: 'still-up', method: 'ping' })));
    assert.equal(peer.child.exitCode, null);
  });

  test('stdout carried JSON-RPC lines only', () => {
    for (const line of peer.lines) {
      const value = JSON.parse(line) as Message;
      assert.equal(value.jsonrpc, '2.0', line);
    }
  });
});

/** POSTs raw text to the MCP endpoint; returns status, headers and the parsed JSON body. */
async function postText(
  url: string,
  text: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Message }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: text,
  });
  const raw = await res.text();
  return { status: res.status, headers: res.headers, body: raw === '' ? {} : (JSON.parse(raw) as Message) };
}

describe('HTTP', () => {
  let server: SpawnedHttpServer;
  let session: string;
  before(async () => {
    server = await spawnHttpServer({ MCP_PLUGINS: `${ECHO},${HOSTILE}` });
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: V2025, capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    session = res.headers.get('mcp-session-id') ?? '';
    assert.ok(session);
  });
  after(() => server.stop());

  test('a 5,000-deep progressToken gets 400/-32600 on both wires and the server stays up', async () => {
    const token = nestedText(5000);
    const modern = await postText(
      server.url,
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":${token},"io.modelcontextprotocol/protocolVersion":"${V2026}","io.modelcontextprotocol/clientCapabilities":{}}}}`,
      { 'mcp-protocol-version': V2026, 'mcp-method': 'tools/call', 'mcp-name': 'progress' },
    );
    assert.equal(modern.status, 400);
    assert.equal(errorCode(modern.body), ErrorCode.InvalidRequest);
    assert.equal(modern.body.id, 7);
    const legacy = await postText(
      server.url,
      `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":${token}}}}`,
      { 'mcp-session-id': session, 'mcp-protocol-version': V2025 },
    );
    assert.equal(legacy.status, 400);
    assert.equal(errorCode(legacy.body), ErrorCode.InvalidRequest);
    assert.equal(legacy.body.id, 8);
    assert.equal(server.child.exitCode, null);
  });

  test('a body nested 10,000 deep holding __proto__ gets -32700, not a 500', async () => {
    const res = await postText(server.url, nestedText(10_000, '{"__proto__":{"x":1}}'), {
      'mcp-session-id': session,
    });
    assert.equal(res.status, 400);
    assert.equal(errorCode(res.body), ErrorCode.ParseError);
  });

  test('names found on Object.prototype are unknown methods (2026: HTTP 404)', async () => {
    for (const method of PROTOTYPE_NAMES) {
      const res = await postText(
        server.url,
        JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { _meta: ENVELOPE } }),
        { 'mcp-protocol-version': V2026, 'mcp-method': method },
      );
      assert.equal(res.status, 404, method);
      assert.equal(errorCode(res.body), ErrorCode.MethodNotFound, method);
    }
  });

  test('a result JSON cannot carry becomes -32603 for its id', async () => {
    const res = await postText(
      server.url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'big',
        method: 'resources/read',
        params: { uri: 'hostile://bigint' },
      }),
      { 'mcp-session-id': session, 'mcp-protocol-version': V2025, accept: 'application/json' },
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.id, 'big');
    assert.equal(errorCode(res.body), ErrorCode.InternalError);
  });

  test('an SSE reply drops a notification JSON cannot carry and still delivers the result', async () => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': V2025,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'n',
        method: 'tools/call',
        params: { name: 'notify_bigint', arguments: {} },
      }),
    });
    const text = await res.text();
    assert.match(text, /"id":"n"/);
    assert.match(text, /"text":"sent"/);
    assert.doesNotMatch(text, /notifications\/message/);
  });

  test('a batch whose reply became an SSE stream carries every reply (found by the fuzz suite)', async () => {
    const init = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const old = init.headers.get('mcp-session-id') ?? '';
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': old,
        'mcp-protocol-version': '2025-03-26',
      },
      body: JSON.stringify([
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'progress', arguments: {}, _meta: { progressToken: 't' } },
        },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
      ]),
    });
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const events = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: ') && l.length > 6)
      .map((l) => JSON.parse(l.slice(6)) as Message);
    assert.ok(events.some((e) => e.method === 'notifications/progress'));
    for (const id of [1, 2])
      assert.ok(
        events.some((e) => e.id === id && 'result' in e),
        `reply ${id}: ${JSON.stringify(events)}`,
      );
  });

  test("refusals echo a request's id, never a posted response's; a JSON-only listen is 406 (found by the fuzz suite)", async () => {
    const notAcceptable = await postText(
      server.url,
      JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'ping' }),
      {
        accept: 'text/html',
        'mcp-session-id': session,
      },
    );
    assert.equal(notAcceptable.status, 406);
    assert.equal(notAcceptable.body.id, 41);
    const response = await postText(server.url, JSON.stringify({ jsonrpc: '2.0', id: 5, result: {} }));
    assert.equal(response.status, 400);
    assert.equal(response.body.id, null);
    const listen = await Promise.race([
      postText(
        server.url,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 9,
          method: 'subscriptions/listen',
          params: { notifications: {}, _meta: ENVELOPE },
        }),
        { accept: 'application/json', 'mcp-protocol-version': V2026, 'mcp-method': 'subscriptions/listen' },
      ),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('listen held open')), 5000)),
    ]);
    assert.equal(listen.status, 406);
    assert.equal(listen.body.id, 9);
  });

  test('headers over 16 KB get 431 with a JSON-RPC body', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(server.url);
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'x-big': 'a'.repeat(20_000) },
        },
        (res) => {
          let data = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            data += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    assert.equal(status, 431);
    const parsed = JSON.parse(body) as Message;
    assert.equal(parsed.jsonrpc, '2.0');
    assert.equal(parsed.id, null);
    assert.equal(errorCode(parsed), ErrorCode.HeadersTooLarge);
  });

  test('a path that is not ours gets a JSON-RPC 404 naming the endpoint', async () => {
    const res = await fetch(new URL('/nope', server.url), { method: 'POST', body: '{}' });
    assert.equal(res.status, 404);
    const body = (await res.json()) as Message;
    assert.equal(errorCode(body), ErrorCode.NotFound);
    assert.match((body.error as { message: string }).message, /\/mcp/);
  });

  test('a stray throw in a plugin drains the process and exits with code 1, logged', async () => {
    const res = await postText(
      server.url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 't',
        method: 'tools/call',
        params: { name: 'stray_throw', arguments: {} },
      }),
      { 'mcp-session-id': session, 'mcp-protocol-version': V2025, accept: 'application/json' },
    );
    assert.equal(res.status, 200);
    const code = await Promise.race([
      server.exited,
      new Promise((r) => setTimeout(() => r('still running'), 20_000)),
    ]);
    assert.equal(code, 1);
    assert.match(server.stderr(), /uncaught exception/);
  });
});

describe('HTTP shutdown', () => {
  test('a request that arrives while the server drains gets a JSON-RPC 503', async () => {
    // The only requests that can still arrive once the listener has closed are those on a
    // kept-alive connection that was busy when shutdown began: here the next request sent on
    // the connection of a slow call, once that call has been answered.
    const t = await buildTestApp();
    const url = new URL(await t.listen());
    const frame = (id: number, method: string, params: Message, extra: string) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: ENVELOPE } });
      return (
        `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n` +
        `accept: application/json\r\nmcp-protocol-version: ${V2026}\r\nmcp-method: ${method}\r\n${extra}` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
      );
    };
    const socket = net.connect(Number(url.port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    const ended = new Promise((resolve) => socket.on('close', resolve));
    const answered = new Promise<void>((resolve) => {
      socket.on('data', (chunk: string) => {
        received += chunk;
        if (received.includes('"id":1')) resolve();
      });
    });
    socket.write(frame(1, 'tools/call', { name: 'slow', arguments: { ms: 500 } }, 'mcp-name: slow\r\n'));
    await until(() => t.server.dispatcher.inflightCount > 0, { message: 'the slow call never started' });
    const closing = t.app.close();
    await answered;
    socket.write(frame(2, 'server/discover', {}, ''));
    const outcome = await Promise.race([ended, new Promise((r) => setTimeout(() => r('open'), 10_000))]);
    socket.destroy();
    await closing;
    await t.server.close();
    assert.notEqual(outcome, 'open', 'the server closed the connection after its 503');
    const responses = received.split(/(?=HTTP\/1\.1 )/);
    assert.equal(responses.length, 2, received);
    assert.match(responses[0]!, /^HTTP\/1\.1 200/);
    assert.match(responses[1]!, /^HTTP\/1\.1 503/);
    const body = JSON.parse(responses[1]!.slice(responses[1]!.indexOf('\r\n\r\n') + 4)) as Message;
    assert.equal(body.id, null);
    assert.equal(errorCode(body), ErrorCode.ServiceUnavailable);
  });
});
