/**
 * One contract for every host of the HTTP edge (src/transports/edge/): each case is sent over
 * the network to the Fastify transport and to the fetch handler under Hono's Node adapter, two
 * servers built from the same settings, and both must answer byte-for-byte alike: the status,
 * the headers that carry meaning (content type, Allow, WWW-Authenticate, Retry-After,
 * Mcp-Session-Id) and the body (an SSE body without its keep-alive comments). Each case also
 * states the answer the protocol asks for (fixture contract §1 and §3), so two hosts that are
 * wrong alike still fail. The cases are the edge cases of hardening.test.ts and
 * fetch-handler.test.ts; every JSON-RPC message is checked against the 2026-07-28 schema.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { pino } from 'pino';
import { buildMcpServer, type McpServer } from '../../src/assembly/server.ts';
import { httpOptions } from '../../src/assembly/transport-options.ts';
import { createAuthenticator } from '../../src/auth/create.ts';
import { ErrorCode } from '../../src/base/errors.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { createFetchHandler } from '../../src/fetch.ts';
import { loadPlugins } from '../../src/plugin/loader.ts';
import { createRateLimiter } from '../../src/ratelimit/limiter.ts';
import { buildHttpApp } from '../../src/transports/http/server.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';
import { assertValidServerMessage } from '../helpers/spec-schema.ts';
import { ECHO_PLUGIN, type Message, parseSse, V2026 } from './http-helpers.ts';

const KEY = 'k'.repeat(32);
/** Room for the deep bodies below; the size cases pass it. */
const MAX_BODY = 65_536;
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': V2026,
  'io.modelcontextprotocol/clientCapabilities': {},
};
/** The headers compared; the rest (Date, Content-Length, Connection, Keep-Alive) are the runtime's. */
const MEANINGFUL = [
  'content-type',
  'cache-control',
  'allow',
  'www-authenticate',
  'retry-after',
  'mcp-session-id',
];

/** One request of a case: sent as it is to both hosts (the Host header is each one's own). */
interface Spec {
  readonly method?: string;
  readonly path?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string is sent as it is; a stream of chunks without a length; anything else as JSON. */
  readonly body?: unknown;
  readonly chunked?: boolean;
}

/** What a client sees of an answer. */
interface Seen {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Host {
  readonly url: string;
  close(): Promise<void>;
}

async function buildServer(env: Record<string, string>, burst?: number): Promise<McpServer> {
  const all = {
    MCP_PLUGINS: ECHO_PLUGIN,
    MCP_HTTP_HOST: '127.0.0.1',
    MCP_HTTP_PORT: '0',
    MCP_MAX_BODY_BYTES: String(MAX_BODY),
    ...env,
  };
  const settings = parseSettings(all);
  const plugins = await loadPlugins(settings.MCP_PLUGINS, all, REPO_ROOT);
  const logger = pino({ level: 'silent' });
  const url = 'http://127.0.0.1/mcp';
  const auth = createAuthenticator(settings, { audience: url, resourceMetadataUrl: url });
  const limiter =
    burst === undefined ? undefined : createRateLimiter({ rps: 0.001, burst, store: 'memory', logger });
  return buildMcpServer({ settings, plugins, logger, auth, limiter });
}

async function fastifyHost(server: McpServer): Promise<Host> {
  const app = await buildHttpApp(server, httpOptions(server.settings));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      app.server.closeAllConnections();
      await app.close();
      await server.close();
    },
  };
}

async function fetchHost(server: McpServer): Promise<Host> {
  const handle = createFetchHandler(server);
  const app = new Hono<{ Bindings: { incoming: { socket: { remoteAddress?: string } } } }>();
  app.all('*', (c) => handle(c.req.raw, { address: c.env.incoming.socket.remoteAddress }));
  const listening = Promise.withResolvers<AddressInfo>();
  const http = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, listening.resolve);
  const { port } = await listening.promise;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      (http as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await server.close();
    },
  };
}

/** Sends `spec` with node:http (fetch would not send a Host header of our choosing). */
function send(host: Host, spec: Spec): Promise<Seen> {
  const text =
    spec.body === undefined
      ? undefined
      : typeof spec.body === 'string'
        ? spec.body
        : JSON.stringify(spec.body);
  const url = new URL(`${host.url}${spec.path ?? '/mcp'}`);
  const headers: Record<string, string> = { ...spec.headers };
  if (text !== undefined && !spec.chunked) headers['content-length'] = String(Buffer.byteLength(text));
  return new Promise<Seen>((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: spec.method ?? 'POST', headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('error', reject);
        res.on('end', () => {
          const seen: Record<string, string> = {};
          for (const name of MEANINGFUL) {
            const value = res.headers[name];
            if (value !== undefined) seen[name] = String(value);
          }
          // Keep-alive comments come as time passes, a rate limit's wait in ms as the clock
          // moves, and an event's stream id is random (after its session's tag): none is the
          // request's to decide.
          body = body
            .replace(/^: keep-alive\n\n/gm, '')
            .replace(/"retryAfterMs":\d+/g, '"retryAfterMs":0')
            .replace(/^id: (?:[0-9a-f]{16}-)?[0-9a-f-]{36}_/gm, 'id: <stream>_');
          resolve({ status: res.statusCode ?? 0, headers: seen, body });
        });
      },
    );
    req.on('error', reject);
    if (text !== undefined && spec.chunked) {
      for (let i = 0; i < text.length; i += 1000) req.write(text.slice(i, i + 1000));
    } else if (text !== undefined) req.write(text);
    req.end();
  });
}

/** A 2026 request with its envelope and routing headers. */
function call(id: unknown, method: string, params: Message = {}, headers: Record<string, string> = {}): Spec {
  const routing: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': V2026,
    'mcp-method': method,
  };
  const name = method === 'resources/read' ? params.uri : params.name;
  if (typeof name === 'string') routing['mcp-name'] = name;
  const meta = { ...ENVELOPE, ...((params._meta as Message | undefined) ?? {}) };
  return {
    headers: { ...routing, ...headers },
    body: { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } },
  };
}

/** The JSON-RPC messages of an answer, each checked against the 2026 schema. */
function messages(seen: Seen, requestMethod?: string, revision = V2026): Message[] {
  const texts =
    seen.headers['content-type'] === 'text/event-stream'
      ? parseSse(seen.body)
          .map((e) => e.data)
          .filter((d) => d !== '')
      : seen.body === ''
        ? []
        : [seen.body];
  return texts.map((text) => {
    const m = JSON.parse(text) as Message;
    assertValidServerMessage(revision, m, 'method' in m ? undefined : requestMethod);
    return m;
  });
}

/** The result of a reply that must be there. */
function resultOf(reply: Message | undefined): Message {
  assert.ok(reply && 'result' in reply, JSON.stringify(reply));
  return reply.result as Message;
}

/** The answer a case expects: a status and, for an error, its code and echoed id. */
interface Expect {
  readonly status: number;
  readonly code?: number;
  readonly id?: unknown;
  /** Checks of the answer beyond the status and the error. */
  readonly check?: (seen: Seen) => void;
}

interface Case {
  readonly name: string;
  /** The request; a function of the session the host named earlier in the suite (2025 wire). */
  readonly spec: Spec | ((session: string) => Spec);
  /** The revision whose schema the messages are checked against. */
  readonly revision?: string;
  readonly expect: Expect;
  readonly requestMethod?: string;
}

const nestedText = (depth: number, leaf = '1') => `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;

const CASES: readonly Case[] = [
  {
    name: 'tools/list answers JSON with the 2026 fields and no session',
    spec: call(1, 'tools/list'),
    requestMethod: 'tools/list',
    expect: {
      status: 200,
      check: (seen) => {
        assert.equal(seen.headers['mcp-session-id'], undefined);
        const [reply] = messages(seen, 'tools/list');
        assert.equal(resultOf(reply).resultType, 'complete');
      },
    },
  },
  {
    name: 'tools/call answers its structured result',
    spec: call(2, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }),
    requestMethod: 'tools/call',
    expect: {
      status: 200,
      check: (seen) =>
        assert.deepEqual(resultOf(messages(seen, 'tools/call')[0]).structuredContent, { sum: 5 }),
    },
  },
  {
    name: 'a call with a progressToken answers an SSE stream: progress, then the result',
    spec: call(3, 'tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'p3' } }),
    requestMethod: 'tools/call',
    expect: {
      status: 200,
      check: (seen) => {
        assert.equal(seen.headers['content-type'], 'text/event-stream');
        const all = messages(seen, 'tools/call');
        assert.deepEqual(
          all.filter((m) => m.method === 'notifications/progress').map((m) => (m.params as Message).progress),
          [0, 50, 100],
        );
        assert.equal(all.at(-1)?.id, 3);
      },
    },
  },
  {
    name: 'the same call from a client that accepts JSON only answers JSON',
    spec: call(
      4,
      'tools/call',
      { name: 'progress', arguments: {}, _meta: { progressToken: 'p4' } },
      {
        accept: 'application/json',
      },
    ),
    requestMethod: 'tools/call',
    expect: { status: 200 },
  },
  {
    name: 'an unknown method is 404 / -32601',
    spec: call(5, 'nope/nothing'),
    expect: { status: 404, code: ErrorCode.MethodNotFound, id: 5 },
  },
  {
    name: 'header and envelope naming an unknown version: 400 / -32022',
    spec: call(
      7,
      'tools/list',
      { _meta: { 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' } },
      {
        'mcp-protocol-version': 'v999.0.0',
      },
    ),
    expect: { status: 400, code: ErrorCode.UnsupportedProtocolVersion, id: 7 },
  },
  {
    name: 'an Mcp-Method header that disagrees with the body: 400 / -32020',
    spec: call(8, 'tools/list', {}, { 'mcp-method': 'tools/call' }),
    expect: { status: 400, code: ErrorCode.HeaderMismatch, id: 8 },
  },
  {
    name: 'a body declared too large: 413 before it is read',
    spec: {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', pad: 'x'.repeat(MAX_BODY) }),
    },
    expect: { status: 413, code: ErrorCode.PayloadTooLarge, id: null },
  },
  {
    name: 'a body streamed past the limit: 413 as it is read',
    spec: {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', pad: 'x'.repeat(MAX_BODY) }),
      chunked: true,
    },
    expect: { status: 413, code: ErrorCode.PayloadTooLarge, id: null },
  },
  {
    name: 'a body that is not JSON by its type: 415',
    spec: call(10, 'tools/list', {}, { 'content-type': 'text/plain' }),
    expect: { status: 415, code: ErrorCode.UnsupportedMediaType, id: null },
  },
  {
    name: 'a POST with no body and no type: 415',
    spec: { headers: {} },
    expect: { status: 415, code: ErrorCode.UnsupportedMediaType, id: null },
  },
  {
    name: 'broken JSON: 400 / -32700',
    spec: { headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":' },
    expect: { status: 400, code: ErrorCode.ParseError, id: null },
  },
  {
    name: 'an empty JSON body: 400 / -32700',
    spec: { headers: { 'content-type': 'application/json' }, body: '' },
    expect: { status: 400, code: ErrorCode.ParseError, id: null },
  },
  {
    name: 'a __proto__ key: 400 / -32700 naming it',
    spec: {
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list","__proto__":{"x":1}}',
    },
    expect: {
      status: 400,
      code: ErrorCode.ParseError,
      id: null,
      check: (seen) => assert.match(seen.body, /__proto__/),
    },
  },
  {
    name: 'a __proto__ key written with a JSON escape (\\u005f): 400 / -32700 naming it',
    spec: {
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"\\u005f_proto__":{"x":1}}}',
    },
    expect: {
      status: 400,
      code: ErrorCode.ParseError,
      id: null,
      check: (seen) => assert.match(seen.body, /__proto__/),
    },
  },
  {
    name: 'a body nested 10,000 deep holding __proto__: -32700, not a 500',
    spec: {
      headers: { 'content-type': 'application/json' },
      body: nestedText(10_000, '{"__proto__":{"x":1}}'),
    },
    expect: { status: 400, code: ErrorCode.ParseError, id: null },
  },
  {
    name: 'a 5,000-deep progressToken: 400 / -32600 with the id',
    spec: {
      headers: call(11, 'tools/call', { name: 'progress' }).headers,
      body: `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":${nestedText(5000)},"io.modelcontextprotocol/protocolVersion":"${V2026}","io.modelcontextprotocol/clientCapabilities":{}}}}`,
    },
    expect: { status: 400, code: ErrorCode.InvalidRequest, id: 11 },
  },
  ...['constructor', '__proto__', 'toString', 'hasOwnProperty'].map(
    (method): Case => ({
      name: `a method named ${method} (found on Object.prototype) is 404 / -32601`,
      spec: call(12, method),
      expect: { status: 404, code: ErrorCode.MethodNotFound, id: 12 },
    }),
  ),
  {
    name: 'a 2026 batch: 400 / -32600 (fixture contract, batches)',
    spec: {
      headers: call(13, 'tools/list').headers,
      body: [call(13, 'tools/list').body, call(14, 'tools/list').body],
    },
    expect: { status: 400, code: ErrorCode.InvalidRequest, id: null },
  },
  {
    name: 'a 2026 notification, with no session: 202 and no body',
    spec: {
      headers: call(0, 'notifications/cancelled').headers,
      body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: ENVELOPE } },
    },
    expect: { status: 202, check: (seen) => assert.equal(seen.body, '') },
  },
  {
    name: 'a foreign Host: 403 / -32011',
    spec: call(15, 'tools/list', {}, { host: 'evil.example' }),
    expect: { status: 403, code: ErrorCode.HostNotAllowed, id: null },
  },
  {
    name: 'a foreign Origin: 403',
    spec: call(16, 'tools/list', {}, { origin: 'https://evil.example' }),
    expect: { status: 403, code: ErrorCode.OriginNotAllowed, id: null },
  },
  {
    name: 'an Accept that allows neither JSON nor SSE: 406 with the id',
    spec: call(17, 'tools/list', {}, { accept: 'text/html' }),
    expect: { status: 406, code: ErrorCode.NotAcceptable, id: 17 },
  },
  {
    name: 'subscriptions/listen from a JSON-only client: 406 at once',
    spec: call(18, 'subscriptions/listen', { notifications: {} }, { accept: 'application/json' }),
    expect: { status: 406, code: ErrorCode.NotAcceptable, id: 18 },
  },
  {
    name: 'a path that is not ours: 404 naming the endpoint',
    spec: { path: '/nope', headers: { 'content-type': 'application/json' }, body: '{}' },
    expect: {
      status: 404,
      code: ErrorCode.NotFound,
      id: null,
      check: (seen) => assert.match(seen.body, /\/mcp/),
    },
  },
];

/** Both hosts on servers built from `env`; the cases sent to each and compared. */
function contract(title: string, env: Record<string, string>, cases: readonly Case[], burst?: number): void {
  describe(title, () => {
    let hosts: [Host, Host];
    // The session each host named (the 2025 wire); answers show it as `<session>`, ids differ.
    const sessions = ['', ''];
    const sent = async (i: 0 | 1, c: Case): Promise<Seen> => {
      const seen = await send(
        hosts[i],
        typeof c.spec === 'function' ? c.spec(sessions[i] as string) : c.spec,
      );
      const named = seen.headers['mcp-session-id'];
      if (named !== undefined) {
        sessions[i] = named;
        seen.headers['mcp-session-id'] = '<session>';
      }
      return seen;
    };
    before(async () => {
      hosts = [
        await fastifyHost(await buildServer(env, burst)),
        await fetchHost(await buildServer(env, burst)),
      ];
    });
    after(async () => {
      for (const host of hosts) await host.close();
    });
    for (const c of cases) {
      test(c.name, async () => {
        const [fastify, fetched] = [await sent(0, c), await sent(1, c)];
        assert.deepEqual(fetched, fastify, 'the fetch handler answers as the Fastify transport');
        assert.equal(fastify.status, c.expect.status, fastify.body);
        if (c.expect.code !== undefined) {
          assert.equal(fastify.headers['content-type'], 'application/json; charset=utf-8');
          const [reply] = messages(fastify, undefined, c.revision);
          assert.ok(reply && 'error' in reply, fastify.body);
          assert.equal((reply.error as { code: number }).code, c.expect.code);
          assert.equal(reply.id, c.expect.id);
        } else if (fastify.body !== '') messages(fastify, c.requestMethod, c.revision);
        c.expect.check?.(fastify);
      });
    }
  });
}

contract('the edge contract: no auth', {}, CASES);

contract('the edge contract: API keys', { MCP_AUTH: 'api_key', MCP_API_KEYS: `ci:${KEY}` }, [
  {
    name: 'no key: 401 with a Bearer challenge',
    spec: call(1, 'tools/list'),
    expect: {
      status: 401,
      code: ErrorCode.Unauthorized,
      id: null,
      check: (seen) => assert.match(seen.headers['www-authenticate'] ?? '', /^Bearer/),
    },
  },
  {
    name: 'a wrong key: 401',
    spec: call(2, 'tools/list', {}, { authorization: `Bearer ${'w'.repeat(32)}` }),
    expect: { status: 401, code: ErrorCode.Unauthorized, id: null },
  },
  {
    name: 'a foreign Host is refused before auth (a rebinding page learns nothing)',
    spec: call(3, 'tools/list', {}, { host: 'evil.example' }),
    expect: { status: 403, code: ErrorCode.HostNotAllowed, id: null },
  },
  {
    name: 'auth before the body: no key and broken JSON is 401',
    spec: { headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":' },
    expect: { status: 401, code: ErrorCode.Unauthorized, id: null },
  },
  {
    name: 'the right key: served',
    spec: call(4, 'tools/list', {}, { authorization: `Bearer ${KEY}` }),
    requestMethod: 'tools/list',
    expect: { status: 200 },
  },
]);

contract(
  'the edge contract: a rate limit of two requests',
  {},
  [
    {
      name: 'the first request is served',
      spec: call(1, 'tools/list'),
      requestMethod: 'tools/list',
      expect: { status: 200 },
    },
    {
      name: 'a notification costs nothing',
      spec: {
        headers: call(0, 'notifications/cancelled').headers,
        body: {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 1, _meta: ENVELOPE },
        },
      },
      expect: { status: 202 },
    },
    {
      name: 'the second request is served',
      spec: call(2, 'tools/list'),
      requestMethod: 'tools/list',
      expect: { status: 200 },
    },
    {
      name: 'the third: 429 with Retry-After and the id',
      spec: call(3, 'tools/list'),
      expect: {
        status: 429,
        code: ErrorCode.RateLimited,
        id: 3,
        check: (seen) => assert.ok(Number(seen.headers['retry-after']) >= 1),
      },
    },
  ],
  2,
);

const V2025 = '2025-11-25';

/** A 2025-wire request on the session the host named. */
function legacy(id: unknown, method: string, params?: Message, headers: Record<string, string> = {}) {
  return (session: string): Spec => ({
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V2025,
      'mcp-session-id': session,
      ...headers,
    },
    body: { jsonrpc: '2.0', id, method, ...(params ? { params } : {}) },
  });
}

contract('the edge contract: the 2025 wire and its sessions', {}, [
  {
    name: 'a request before initialize, without a session: 400',
    spec: {
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    },
    revision: V2025,
    expect: { status: 400, code: ErrorCode.BadRequest, id: 1 },
  },
  {
    name: 'an MCP-Protocol-Version nobody speaks, without the envelope: 400 naming it',
    spec: legacy(2, 'tools/list', undefined, { 'mcp-protocol-version': '1999-01-01' }),
    revision: V2025,
    expect: {
      status: 400,
      code: ErrorCode.BadRequest,
      id: 2,
      check: (seen) => assert.match(seen.body, /1999-01-01/),
    },
  },
  {
    name: 'initialize opens a session, named in Mcp-Session-Id',
    spec: {
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 3,
        method: 'initialize',
        params: { protocolVersion: V2025, capabilities: {}, clientInfo: { name: 'contract', version: '1' } },
      },
    },
    revision: V2025,
    requestMethod: 'initialize',
    expect: { status: 200, check: (seen) => assert.equal(seen.headers['mcp-session-id'], '<session>') },
  },
  {
    name: 'notifications/initialized: 202',
    spec: (session) => ({
      headers: { 'content-type': 'application/json', 'mcp-session-id': session },
      body: { jsonrpc: '2.0', method: 'notifications/initialized' },
    }),
    expect: { status: 202 },
  },
  {
    name: 'a call on the session',
    spec: legacy(4, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }),
    revision: V2025,
    requestMethod: 'tools/call',
    expect: { status: 200, check: (seen) => assert.match(seen.body, /"sum":3/) },
  },
  {
    name: 'a 2025-11-25 call that sends progress: a resumable SSE reply (priming event with an id)',
    spec: legacy(5, 'tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 't' } }),
    revision: V2025,
    requestMethod: 'tools/call',
    expect: {
      status: 200,
      check: (seen) => {
        assert.equal(seen.headers['content-type'], 'text/event-stream');
        const events = parseSse(seen.body);
        assert.equal(events[0]?.data, '', 'the priming event');
        assert.ok(
          events.every((e) => e.id),
          'every event has an id',
        );
      },
    },
  },
  {
    name: 'a batch on a 2025-11-25 session: 400 / -32600',
    spec: (session) => ({
      ...legacy(6, 'ping')(session),
      body: [
        { jsonrpc: '2.0', id: 6, method: 'ping' },
        { jsonrpc: '2.0', id: 7, method: 'ping' },
      ],
    }),
    revision: V2025,
    expect: { status: 400, code: ErrorCode.InvalidRequest, id: null },
  },
  {
    name: 'an unknown session: 404',
    spec: legacy(8, 'tools/list', undefined, { 'mcp-session-id': 'no-such-session' }),
    revision: V2025,
    expect: { status: 404, code: ErrorCode.SessionNotFound, id: 8 },
  },
  {
    name: 'a GET without a session: 400',
    spec: { method: 'GET', headers: { accept: 'text/event-stream' } },
    revision: V2025,
    expect: { status: 400, code: ErrorCode.BadRequest, id: null },
  },
  {
    name: 'a GET that does not accept an event stream: 406',
    spec: (session) => ({
      method: 'GET',
      headers: { accept: 'application/json', 'mcp-session-id': session },
    }),
    revision: V2025,
    expect: { status: 406, code: ErrorCode.NotAcceptable, id: null },
  },
  {
    name: 'PUT: 405 with Allow',
    spec: { method: 'PUT', headers: {} },
    revision: V2025,
    expect: {
      status: 405,
      code: ErrorCode.MethodNotAllowed,
      id: null,
      check: (seen) => assert.equal(seen.headers.allow, 'GET, POST, DELETE'),
    },
  },
  {
    name: 'DELETE ends the session: 200',
    spec: (session) => ({ method: 'DELETE', headers: { 'mcp-session-id': session } }),
    expect: { status: 200 },
  },
  {
    name: 'the ended session: 404',
    spec: legacy(9, 'tools/list'),
    revision: V2025,
    expect: { status: 404, code: ErrorCode.SessionNotFound, id: 9 },
  },
]);
