/**
 * Shared pieces of the HTTP transport tests: an app built the way serve() builds it (settings
 * parsed from an env, plugins loaded by the loader, the Fastify app from buildHttpApp), a
 * POST helper, an SSE parser, and checks that validate every JSON-RPC message against the
 * spec schema of its revision.
 */
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { buildMcpServer, type McpServer } from '../../src/assembly/server.ts';
import { httpOptions } from '../../src/assembly/transport-options.ts';
import { parseSettings, type Settings } from '../../src/config/settings.ts';
import { loadPlugins } from '../../src/plugin/loader.ts';
import type { SessionStore } from '../../src/protocol/session/store.ts';
import { buildHttpApp } from '../../src/transports/http/server.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';
import { assertValidServerMessage } from '../helpers/spec-schema.ts';

export const V2025 = '2025-11-25';
export const V2026 = '2026-07-28';
export const ACCEPT_BOTH = 'application/json, text/event-stream';
export const ECHO_PLUGIN = './test/fixtures/echo-plugin.ts';

export type Message = Record<string, unknown>;
export type Response = LightMyRequestResponse;

export interface TestApp {
  readonly app: FastifyInstance;
  readonly server: McpServer;
  readonly settings: Settings;
  /** Listens on 127.0.0.1, a free port; returns the MCP endpoint URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** The echo plugin's server behind the real Fastify app; `env` adds or overrides MCP_* settings. */
export async function buildTestApp(
  env: Readonly<Record<string, string>> = {},
  options: { sessions?: SessionStore } = {},
): Promise<TestApp> {
  const all = { MCP_PLUGINS: ECHO_PLUGIN, MCP_HTTP_HOST: '127.0.0.1', MCP_HTTP_PORT: '0', ...env };
  const settings = parseSettings(all);
  const plugins = await loadPlugins(settings.MCP_PLUGINS, all, REPO_ROOT);
  const server = await buildMcpServer({
    settings,
    plugins,
    logger: pino({ level: 'silent' }),
    sessions: options.sessions,
  });
  const app = await buildHttpApp(server, httpOptions(settings));
  return {
    app,
    server,
    settings,
    async listen() {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      assert.ok(typeof address === 'object' && address);
      return `http://127.0.0.1:${address.port}${settings.MCP_HTTP_PATH}`;
    },
    async close() {
      app.server.closeAllConnections();
      await app.close();
      await server.close();
    },
  };
}

export interface PostOptions {
  session?: string;
  /** Sent as MCP-Protocol-Version. */
  version?: string;
  accept?: string;
  headers?: Record<string, string>;
}

/** POSTs a JSON body (an object is serialised; a string is sent as it is). */
export function post(app: FastifyInstance, body: unknown, options: PostOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: options.accept ?? ACCEPT_BOTH,
  };
  if (options.session) headers['mcp-session-id'] = options.session;
  if (options.version) headers['mcp-protocol-version'] = options.version;
  return app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...headers, ...options.headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A request envelope: `{ jsonrpc, id, method, params? }`. */
export function req(id: string | number, method: string, params?: Message): Message {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

/** Parses a JSON reply, checks its content type and its shape against the revision's schema. */
export function jsonReply(res: Response, revision: string, requestMethod?: string): Message {
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = JSON.parse(res.body) as Message;
  assertValidServerMessage(revision, body, requestMethod);
  return body;
}

/** Asserts an HTTP status plus a JSON-RPC error body with `code` and `id`; returns the error. */
export function expectError(
  res: Response,
  status: number,
  code: number,
  id: string | number | null,
  revision = V2025,
): { code: number; message: string; data?: unknown } {
  assert.equal(res.statusCode, status, `status (body: ${res.body})`);
  const body = jsonReply(res, revision);
  assert.equal(body.id, id, 'the error echoes the request id');
  assert.ok(!('result' in body));
  const error = body.error as { code: number; message: string; data?: unknown };
  assert.equal(error.code, code, `code (message: ${error.message})`);
  assert.ok(error.message.length > 0);
  return error;
}

export interface SseEvent {
  id?: string;
  event?: string;
  retry?: number;
  data: string;
}

/** Splits an SSE body into events (text/event-stream, WHATWG HTML §9.2); comments are dropped. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === '') continue;
    const event: SseEvent = { data: '' };
    const data: string[] = [];
    let fields = 0;
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      fields++;
      if (name === 'data') data.push(value);
      else if (name === 'id') event.id = value;
      else if (name === 'event') event.event = value;
      else if (name === 'retry') event.retry = Number(value);
    }
    if (fields === 0) continue;
    event.data = data.join('\n');
    events.push(event);
  }
  return events;
}

/** The JSON-RPC messages of an SSE body, each validated (the answer to `requestMethod` included). */
export function sseMessages(
  events: readonly SseEvent[],
  revision: string,
  requestMethod?: string,
): Message[] {
  return events
    .filter((e) => e.data !== '')
    .map((e) => {
      const m = JSON.parse(e.data) as Message;
      assertValidServerMessage(revision, m, 'method' in m ? undefined : requestMethod);
      return m;
    });
}

/** Runs initialize (and notifications/initialized) and returns the session id. */
export async function openSession(app: FastifyInstance, version = V2025): Promise<string> {
  const res = await post(
    app,
    req(0, 'initialize', {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: 'http-test', version: '1.0.0' },
    }),
  );
  assert.equal(res.statusCode, 200, res.body);
  const body = jsonReply(res, version, 'initialize');
  assert.equal((body.result as Message).protocolVersion, version);
  const session = res.headers['mcp-session-id'];
  assert.equal(typeof session, 'string');
  const ack = await post(
    app,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    {
      session: session as string,
      version,
    },
  );
  assert.equal(ack.statusCode, 202);
  return session as string;
}
