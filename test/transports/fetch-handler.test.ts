/**
 * The fetch handler (`@mcp-toolkit/server/fetch`): both wires as
 * `(request: Request) => Promise<Response>`. Called with plain `Request` objects: results,
 * a progress call answered as an SSE stream read from the Response body, the ladder's
 * refusals (unknown method, bad version header, body size and type, Host and Origin, Accept),
 * the 2025 wire's sessions (initialize, a GET stream, DELETE) and `sessions: 'stateless'`
 * (each request on its own; GET and DELETE 405), a client that goes away, API-key auth, and
 * the TypeErrors of a wrong argument. Then under Hono's Node adapter, called by the official
 * v1 client and the v2 client in its default mode and pinned to 2026-07-28. Every 2026 message
 * is checked against the 2026-07-28 spec schema (test/transports/edge-contract.test.ts holds
 * the cases both hosts must answer alike).
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { serve } from '@hono/node-server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Hono } from 'hono';
import { pino } from 'pino';
import { createServer as createPublicServer } from '../../src/assembly/serve.ts';
import { buildMcpServer, type McpServer } from '../../src/assembly/server.ts';
import { createAuthenticator } from '../../src/auth/create.ts';
import { ErrorCode } from '../../src/base/errors.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { createFetchHandler, type FetchHandler } from '../../src/fetch.ts';
import { loadPlugins } from '../../src/plugin/loader.ts';
import { createRateLimiter } from '../../src/ratelimit/limiter.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';
import { assertValidServerMessage } from '../helpers/spec-schema.ts';
import { ECHO_PLUGIN, type Message, parseSse, V2026 } from './http-helpers.ts';

const URL_MCP = 'http://127.0.0.1:8000/mcp';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': V2026,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'fetch-test', version: '1.0.0' },
};

async function buildServer(
  env: Record<string, string> = {},
  options: { burst?: number } = {},
): Promise<McpServer> {
  const all = { MCP_PLUGINS: ECHO_PLUGIN, MCP_MAX_BODY_BYTES: '4096', ...env };
  const settings = parseSettings(all);
  const plugins = await loadPlugins(settings.MCP_PLUGINS, all, REPO_ROOT);
  const logger = pino({ level: 'silent' });
  const auth = createAuthenticator(settings, { audience: URL_MCP, resourceMetadataUrl: URL_MCP });
  const limiter =
    options.burst === undefined
      ? undefined
      : createRateLimiter({ rps: 0.001, burst: options.burst, store: 'memory', logger });
  return buildMcpServer({ settings, plugins, logger, auth, limiter });
}

interface CallOptions {
  meta?: Message | null;
  headers?: Record<string, string | undefined>;
  accept?: string;
  signal?: AbortSignal;
}

/** A 2026 POST as a plain Request: the envelope in params._meta, MCP-Protocol-Version, Mcp-Method, Mcp-Name. */
function call(id: number, method: string, params: Message = {}, options: CallOptions = {}): Request {
  const withMeta =
    options.meta === null ? params : { ...params, _meta: { ...ENVELOPE, ...(options.meta ?? {}) } };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: options.accept ?? 'application/json, text/event-stream',
    'mcp-protocol-version': V2026,
    'mcp-method': method,
  };
  const name = method === 'resources/read' ? params.uri : params.name;
  if (typeof name === 'string') headers['mcp-name'] = name;
  for (const [k, v] of Object.entries(options.headers ?? {})) {
    delete headers[k];
    if (v !== undefined) headers[k] = v;
  }
  return new Request(URL_MCP, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: withMeta }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

async function json(res: Response, requestMethod?: string): Promise<Message> {
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = (await res.json()) as Message;
  assertValidServerMessage(V2026, body, requestMethod);
  return body;
}

/** Asserts the status and a JSON-RPC error with `code` echoing `id`; returns the error. */
async function expectError(
  res: Response,
  status: number,
  code: number,
  id: number | null,
): Promise<{ message: string; data?: unknown }> {
  assert.equal(res.status, status);
  const body = await json(res);
  assert.equal(body.id, id);
  const error = body.error as { code: number; message: string; data?: unknown };
  assert.equal(error.code, code, error.message);
  return error;
}

describe('the fetch handler with plain Request objects', () => {
  let server: McpServer;
  let handle: FetchHandler;
  before(async () => {
    server = await buildServer();
    handle = createFetchHandler(server);
  });
  after(() => server.close());

  test('tools/list and tools/call answer JSON with the 2026 fields and no session', async () => {
    const listed = await handle(call(1, 'tools/list'));
    assert.equal(listed.status, 200);
    assert.equal(listed.headers.get('mcp-session-id'), null);
    const list = (await json(listed, 'tools/list')).result as Message;
    assert.equal(list.resultType, 'complete');
    assert.ok((list.tools as Message[]).some((t) => t.name === 'add'));
    const called = await handle(call(2, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }));
    assert.equal(called.status, 200);
    const result = (await json(called, 'tools/call')).result as Message;
    assert.deepEqual(result.structuredContent, { sum: 5 });
    assert.equal(result.resultType, 'complete');
  });

  test('a call with a progressToken answers an SSE stream: progress events, then the result', async () => {
    const res = await handle(
      call(3, 'tools/call', { name: 'progress', arguments: {} }, { meta: { progressToken: 'p3' } }),
    );
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    assert.equal(res.headers.get('connection'), null, 'hop-by-hop headers are the runtime’s');
    const messages = parseSse(await res.text()).map((e) => JSON.parse(e.data) as Message);
    for (const m of messages) assertValidServerMessage(V2026, m, 'method' in m ? undefined : 'tools/call');
    const progress = messages.filter((m) => m.method === 'notifications/progress');
    assert.deepEqual(
      progress.map((m) => (m.params as Message).progress),
      [0, 50, 100],
    );
    assert.ok(progress.every((m) => (m.params as Message).progressToken === 'p3'));
    const last = messages.at(-1) as Message;
    assert.equal(last.id, 3);
    assert.equal((last.result as Message).resultType, 'complete');
  });

  test('the same call from a client that accepts JSON only answers JSON (progress cannot be delivered)', async () => {
    const res = await handle(
      call(
        4,
        'tools/call',
        { name: 'progress', arguments: {} },
        { meta: { progressToken: 'p4' }, accept: 'application/json' },
      ),
    );
    assert.equal(res.status, 200);
    const body = await json(res, 'tools/call');
    assert.equal(((body.result as Message).content as Message[])[0]?.text, 'finished');
  });

  test('an unknown method is 404 / -32601; a bad MCP-Protocol-Version is 400', async () => {
    await expectError(await handle(call(5, 'nope/nothing')), 404, ErrorCode.MethodNotFound, 5);
    // Header only, no envelope, naming a version nobody speaks: the 2025 wire's refusal.
    const headerOnly = await handle(
      call(6, 'tools/list', {}, { meta: null, headers: { 'mcp-protocol-version': '1999-01-01' } }),
    );
    assert.equal(headerOnly.status, 400);
    const refused = (await headerOnly.json()) as Message;
    assert.equal((refused.error as { code: number }).code, ErrorCode.BadRequest);
    assert.match((refused.error as { message: string }).message, /1999-01-01/);
    // Header and envelope both name one we do not speak: the dispatcher's ladder answers, same code.
    const both = await expectError(
      await handle(
        call(
          7,
          'tools/list',
          {},
          {
            meta: { 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' },
            headers: { 'mcp-protocol-version': 'v999.0.0' },
          },
        ),
      ),
      400,
      ErrorCode.UnsupportedProtocolVersion,
      7,
    );
    assert.deepEqual(both.data, { supported: [V2026], requested: 'v999.0.0' });
    // A header that disagrees with the body: -32020, as over Fastify.
    await expectError(
      await handle(call(8, 'tools/list', {}, { headers: { 'mcp-method': 'tools/call' } })),
      400,
      ErrorCode.HeaderMismatch,
      8,
    );
  });

  test('bodies: too large (declared, or streamed past the limit) 413, not JSON 415, bad JSON 400', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', pad: 'x'.repeat(5000) });
    const declared = new Request(URL_MCP, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(big.length) },
      body: big,
    });
    await expectError(await handle(declared), 413, ErrorCode.PayloadTooLarge, null);
    const bytes = new TextEncoder().encode(big);
    const streamed = new Request(URL_MCP, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < bytes.length; i += 1000) c.enqueue(bytes.slice(i, i + 1000));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    await expectError(await handle(streamed), 413, ErrorCode.PayloadTooLarge, null);
    const text = call(10, 'tools/list', {}, { headers: { 'content-type': 'text/plain' } });
    await expectError(await handle(text), 415, ErrorCode.UnsupportedMediaType, null);
    const broken = new Request(URL_MCP, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":',
    });
    await expectError(await handle(broken), 400, ErrorCode.ParseError, null);
    const poisoned = new Request(URL_MCP, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list","__proto__":{"x":1}}',
    });
    const err = await expectError(await handle(poisoned), 400, ErrorCode.ParseError, null);
    assert.match(err.message, /__proto__/);
  });

  test('PUT is 405; GET and DELETE without a session are 400; another path is 404', async () => {
    const put = await handle(new Request(URL_MCP, { method: 'PUT' }));
    assert.equal(put.headers.get('allow'), 'GET, POST, DELETE');
    await expectError(put, 405, ErrorCode.MethodNotAllowed, null);
    for (const method of ['GET', 'DELETE']) {
      const res = await handle(new Request(URL_MCP, { method, headers: { accept: 'text/event-stream' } }));
      await expectError(res, 400, ErrorCode.BadRequest, null);
    }
    const other = await handle(new Request('http://127.0.0.1:8000/other', { method: 'POST' }));
    await expectError(other, 404, ErrorCode.NotFound, null);
  });

  test('the 2025 wire: initialize opens a session, a GET stream carries its notifications, DELETE ends it', async () => {
    const initialize = await handle(
      new Request(URL_MCP, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 11,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'x', version: '1' },
          },
        }),
      }),
    );
    assert.equal(initialize.status, 200);
    const session = initialize.headers.get('mcp-session-id') ?? '';
    assert.ok(session, 'a session id');
    const opened = (await initialize.json()) as Message;
    assertValidServerMessage('2025-11-25', opened, 'initialize');
    const legacy = (id: number, method: string, params?: Message) =>
      new Request(URL_MCP, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }),
      });
    const initialized = await handle(
      new Request(URL_MCP, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'mcp-session-id': session },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      }),
    );
    assert.equal(initialized.status, 202);
    const sum = await handle(legacy(12, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }));
    assert.deepEqual(((await sum.json()) as { result: Message }).result.structuredContent, { sum: 3 });
    // The standalone stream: its priming event first (2025-11-25 resumability).
    const stream = await handle(
      new Request(URL_MCP, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } }),
    );
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get('content-type'), 'text/event-stream');
    assert.equal(stream.headers.get('mcp-session-id'), session);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const [priming] = parseSse(new TextDecoder().decode((await reader.read()).value));
    assert.ok(priming?.id, 'the priming event has an id');
    assert.equal(priming?.data, '');
    assert.ok(server.hub.sessionStreams.ids().includes(session), 'the stream is attached');
    const ended = await handle(
      new Request(URL_MCP, { method: 'DELETE', headers: { 'mcp-session-id': session } }),
    );
    assert.equal(ended.status, 200);
    assert.equal((await reader.read()).done, true, 'DELETE ended the stream');
    await expectError(await handle(legacy(13, 'tools/list')), 404, ErrorCode.SessionNotFound, 13);
  });

  test('Host and Origin are checked as over Fastify (loopback by default); Accept must allow JSON or SSE', async () => {
    const foreignHost = call(14, 'tools/list', {}, { headers: { host: 'evil.example' } });
    await expectError(await handle(foreignHost), 403, ErrorCode.HostNotAllowed, null);
    const foreignOrigin = call(15, 'tools/list', {}, { headers: { origin: 'https://evil.example' } });
    await expectError(await handle(foreignOrigin), 403, ErrorCode.OriginNotAllowed, null);
    const open = createFetchHandler(server, { checkHost: false });
    const res = await open(new Request('https://mcp.example.com/mcp', call(16, 'tools/list')));
    assert.equal(res.status, 200, 'checkHost: false serves any Host');
    await expectError(
      await handle(call(17, 'tools/list', {}, { accept: 'text/html' })),
      406,
      ErrorCode.NotAcceptable,
      17,
    );
  });

  test('a client that goes away aborts its call (the Request signal)', async () => {
    const gone = new AbortController();
    const started = Date.now();
    const pending = handle(
      call(18, 'tools/call', { name: 'slow', arguments: { ms: 5000 } }, { signal: gone.signal }),
    );
    setTimeout(() => gone.abort(), 50);
    const res = await pending;
    assert.ok(Date.now() - started < 3000, 'the 5 s call ended early');
    const body = (await res.json()) as Message;
    assert.equal(body.id, 18);
  });

  test('subscriptions/listen holds an SSE stream: the acknowledgement first, until the reader cancels', async () => {
    const res = await handle(call(20, 'subscriptions/listen', { notifications: { toolsListChanged: true } }));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const { value } = await reader.read();
    const [ack] = parseSse(new TextDecoder().decode(value)).map((e) => JSON.parse(e.data) as Message);
    assert.equal(ack?.method, 'notifications/subscriptions/acknowledged');
    assertValidServerMessage(V2026, ack);
    assert.equal(server.hub.listenStreams.of('address:local'), 1);
    await reader.cancel();
    for (let i = 0; i < 50 && server.hub.listenStreams.of('address:local') > 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(server.hub.listenStreams.of('address:local'), 0, 'the listener is gone with its reader');
    const jsonOnly = await handle(
      call(21, 'subscriptions/listen', { notifications: {} }, { accept: 'application/json' }),
    );
    await expectError(jsonOnly, 406, ErrorCode.NotAcceptable, 21);
  });

  test('path and body limit follow the options', async () => {
    const mounted = createFetchHandler(server, { path: '/api/mcp', maxBodyBytes: 1024 });
    const req = (body: string) =>
      new Request('http://127.0.0.1:8000/api/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'mcp-protocol-version': V2026,
          'mcp-method': 'tools/list',
        },
        body,
      });
    const ok = await mounted(
      req(JSON.stringify({ jsonrpc: '2.0', id: 19, method: 'tools/list', params: { _meta: ENVELOPE } })),
    );
    assert.equal(ok.status, 200);
    await expectError(
      await mounted(req(`{"pad":"${'x'.repeat(1100)}"}`)),
      413,
      ErrorCode.PayloadTooLarge,
      null,
    );
  });
});

describe('the fetch handler with API-key auth', () => {
  const KEY = 'k'.repeat(32);
  let server: McpServer;
  let handle: FetchHandler;
  before(async () => {
    server = await buildServer({ MCP_AUTH: 'api_key', MCP_API_KEYS: `ci:${KEY}` });
    handle = createFetchHandler(server);
  });
  after(() => server.close());

  test('no key or a wrong key: 401 with WWW-Authenticate; the right key: served', async () => {
    const none = await handle(call(1, 'tools/list'));
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
    await expectError(none, 401, ErrorCode.Unauthorized, null);
    const wrong = await handle(
      call(2, 'tools/list', {}, { headers: { authorization: `Bearer ${'w'.repeat(32)}` } }),
    );
    await expectError(wrong, 401, ErrorCode.Unauthorized, null);
    const right = await handle(call(3, 'tools/list', {}, { headers: { authorization: `Bearer ${KEY}` } }));
    assert.equal(right.status, 200);
    assert.equal((await json(right, 'tools/list')).id, 3);
    const get = await handle(new Request(URL_MCP, { headers: { authorization: `Bearer ${KEY}` } }));
    await expectError(get, 400, ErrorCode.BadRequest, null);
  });
});

describe('the fetch handler: rate limit and refusal records', () => {
  let server: McpServer;
  before(async () => {
    server = await buildServer({}, { burst: 2 });
  });
  after(() => server.close());

  test('a client past its bucket gets 429 with Retry-After, keyed by the address the runtime gives', async () => {
    const handle = createFetchHandler(server);
    const from = { address: '192.0.2.7' };
    assert.equal((await handle(call(1, 'tools/list'), from)).status, 200);
    assert.equal((await handle(call(2, 'tools/list'), from)).status, 200);
    const limited = await handle(call(3, 'tools/list'), from);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    await expectError(limited, 429, ErrorCode.RateLimited, 3);
    const other = await handle(call(4, 'tools/list'), { address: '192.0.2.8' });
    assert.equal(other.status, 200, 'another address has its own bucket');
  });

  test('every refusal is recorded as over Fastify: a span with its reason, the method and the address', async () => {
    const seen: { httpMethod: string; status: number; reason: string; method?: string; address?: string }[] =
      [];
    const telemetry = {
      ...server.telemetry,
      recordRefusal: (info: (typeof seen)[number]) => {
        seen.push(info);
        return undefined;
      },
    };
    const handle = createFetchHandler({ ...server, telemetry });
    await handle(new Request(URL_MCP, { method: 'DELETE' }), { address: '192.0.2.9' });
    await handle(call(5, 'tools/list', {}, { headers: { host: 'evil.example' } }));
    await handle(
      call(6, 'tools/list', {}, { meta: null, headers: { 'mcp-protocol-version': '1999-01-01' } }),
    );
    assert.deepEqual(
      seen.map(({ httpMethod, status, reason, method, address }) => ({
        httpMethod,
        status,
        reason,
        method,
        address,
      })),
      [
        { httpMethod: 'DELETE', status: 400, reason: 'bad_request', method: undefined, address: '192.0.2.9' },
        {
          httpMethod: 'POST',
          status: 403,
          reason: 'host_not_allowed',
          method: undefined,
          address: undefined,
        },
        { httpMethod: 'POST', status: 400, reason: 'bad_request', method: 'tools/list', address: undefined },
      ],
    );
  });
});

describe('the fetch handler under Hono (Node adapter), called by the official clients', () => {
  let server: McpServer;
  let close: () => Promise<void>;
  let url: string;
  before(async () => {
    server = await buildServer();
    const handle = createFetchHandler(server);
    const app = new Hono();
    app.all('/mcp', (c) => handle(c.req.raw));
    const listening = Promise.withResolvers<AddressInfo>();
    const http = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, listening.resolve);
    const address = await listening.promise;
    url = `http://127.0.0.1:${address.port}/mcp`;
    close = async () => {
      (http as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await server.close();
    };
  });
  after(() => close());

  test('pinned to 2026-07-28: lists, calls, and receives progress over SSE', async () => {
    const statuses: { method: string; status: number; type: string }[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        statuses.push({
          method: init?.method ?? 'GET',
          status: res.status,
          type: res.headers.get('content-type') ?? '',
        });
        return res;
      },
    });
    const client = new Client(
      { name: 'fetch-hono-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: V2026 } } },
    );
    await client.connect(transport);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), V2026);
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'add'));
      const sum = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
      assert.deepEqual(sum.structuredContent, { sum: 42 });
      const seen: number[] = [];
      const done = await client.callTool(
        { name: 'progress', arguments: {} },
        { onprogress: (p: { progress: number }) => seen.push(p.progress) },
      );
      assert.deepEqual(seen, [0, 50, 100]);
      assert.equal((done.content as { text?: string }[])[0]?.text, 'finished');
    } finally {
      await client.close();
    }
    const posts = statuses.filter((s) => s.method === 'POST');
    assert.ok(posts.length >= 4, JSON.stringify(statuses));
    assert.ok(
      posts.every((s) => s.status === 200),
      JSON.stringify(statuses),
    );
    assert.ok(
      posts.some((s) => s.type === 'text/event-stream'),
      'the progress call was streamed',
    );
  });

  test('the official v1 client (2025 wire): a session, tools, progress, an elicitation round, DELETE', async () => {
    const client = new V1Client(
      { name: 'fetch-v1', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { name: 'Ada' },
    }));
    const transport = new V1Transport(new URL(url));
    await client.connect(transport);
    try {
      assert.ok(transport.sessionId, 'the handler named a session');
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'add'));
      const sum = await client.callTool({ name: 'add', arguments: { a: 40, b: 2 } });
      assert.deepEqual(sum.structuredContent, { sum: 42 });
      const seen: number[] = [];
      await client.callTool({ name: 'progress', arguments: {} }, undefined, {
        onprogress: (p) => seen.push(p.progress),
      });
      assert.deepEqual(seen, [0, 50, 100]);
      const asked = await client.callTool({ name: 'ask_name', arguments: {} });
      assert.match((asked.content as { text: string }[])[0]?.text ?? '', /Hello, Ada/);
      await transport.terminateSession();
      assert.equal(transport.sessionId, undefined);
    } finally {
      await client.close();
    }
  });

  test('the official v2 client in its default mode (2025 wire): a session, tools and progress', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const client = new Client({ name: 'fetch-v2', version: '1.0.0' });
    await client.connect(transport);
    try {
      assert.notEqual(client.getNegotiatedProtocolVersion(), V2026);
      assert.ok(transport.sessionId, 'the handler named a session');
      const sum = await client.callTool({ name: 'add', arguments: { a: 1, b: 41 } });
      assert.deepEqual(sum.structuredContent, { sum: 42 });
      const seen: number[] = [];
      await client.callTool(
        { name: 'progress', arguments: {} },
        { onprogress: (p: { progress: number }) => seen.push(p.progress) },
      );
      assert.deepEqual(seen, [0, 50, 100]);
    } finally {
      await client.close();
    }
  });
});

describe("the fetch handler with sessions: 'stateless' (a host that keeps nothing between requests)", () => {
  let server: McpServer;
  let close: () => Promise<void>;
  let url: string;
  before(async () => {
    server = await buildServer();
    const handle = createFetchHandler(server, { sessions: 'stateless' });
    const app = new Hono();
    app.all('/mcp', (c) => handle(c.req.raw));
    const listening = Promise.withResolvers<AddressInfo>();
    const http = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, listening.resolve);
    url = `http://127.0.0.1:${(await listening.promise).port}/mcp`;
    close = async () => {
      (http as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await server.close();
    };
  });
  after(() => close());

  test('the official v1 client: initialize names no session, each call stands alone, nothing is stored', async () => {
    const before = server.sessions.size();
    const client = new V1Client({ name: 'fetch-stateless', version: '1.0.0' });
    const transport = new V1Transport(new URL(url));
    await client.connect(transport);
    try {
      assert.equal(transport.sessionId, undefined);
      const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 2 } });
      assert.deepEqual(sum.structuredContent, { sum: 4 });
      await client.setLoggingLevel('error');
      const seen: number[] = [];
      await client.callTool({ name: 'progress', arguments: {} }, undefined, {
        onprogress: (p) => seen.push(p.progress),
      });
      assert.deepEqual(seen, [0, 50, 100]);
    } finally {
      await client.close();
    }
    assert.equal(server.sessions.size(), before, 'no session was stored');
  });

  test('no client capabilities are known: a tool that elicits is refused with -32021', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'ask_name', arguments: {} },
      }),
    });
    const body = (await res.json()) as Message;
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal((body.error as { code: number }).code, ErrorCode.MissingRequiredClientCapability);
    assert.equal(body.id, 7);
  });

  test('GET and DELETE are 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(url, {
        method,
        headers: { accept: 'text/event-stream', 'mcp-session-id': 'x' },
      });
      assert.equal(res.headers.get('allow'), 'POST', method);
      await expectError(res, 405, ErrorCode.MethodNotAllowed, null);
    }
  });
});

describe('createFetchHandler: what it takes', () => {
  test('the handle createServer() returns, as well as its server', async () => {
    const running = await createPublicServer({ plugins: [ECHO_PLUGIN], transport: 'none' });
    try {
      for (const given of [running, running.server]) {
        const handle = createFetchHandler(given);
        const res = await handle(call(1, 'tools/list'));
        assert.equal(res.status, 200);
        assert.equal((await json(res, 'tools/list')).id, 1);
      }
    } finally {
      await running.close();
    }
  });

  test('a wrong argument is a TypeError at creation, naming what was expected', async () => {
    const server = await buildServer();
    try {
      for (const wrong of [undefined, null, 'mcp', {}, { server: {} }, { dispatcher: {} }]) {
        assert.throws(
          () => createFetchHandler(wrong as never),
          (err: unknown) =>
            err instanceof TypeError && /the handle createServer\(\) returns/.test(err.message),
        );
      }
      assert.throws(
        () => createFetchHandler(server, { pathh: '/mcp' } as never),
        /unknown option "pathh"; the options are path, /,
      );
      assert.throws(
        () => createFetchHandler(server, { path: 'mcp' }),
        /option "path" must be a path starting with '\/'/,
      );
      assert.throws(
        () => createFetchHandler(server, { sessions: 'none' as never }),
        /'stateful' or 'stateless'/,
      );
      assert.throws(() => createFetchHandler(server, { maxBodyBytes: -1 }), /positive integer/);
      assert.throws(() => createFetchHandler(server, 'x' as never), TypeError);
    } finally {
      await server.close();
    }
  });
});
