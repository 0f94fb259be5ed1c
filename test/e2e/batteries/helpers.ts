/**
 * Shared pieces of the batteries end-to-end tests: the real server started in-process with
 * `serve()` (the same path the CLI takes) on 127.0.0.1 and a free port, raw JSON-RPC POSTs
 * for exact statuses and headers, a 2025-wire session opener, a 2026-wire request builder,
 * and the official v1 SDK client with custom headers.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type RunningServer, serve } from '../../../src/assembly/serve.ts';

export const ECHO_PLUGIN = './test/fixtures/echo-plugin.ts';
export const BATTERIES_PLUGIN = './test/e2e/batteries/fixtures/batteries-plugin.ts';
export const V2025 = '2025-11-25';
export const V2026 = '2026-07-28';
const ACCEPT = 'application/json, text/event-stream';

export interface InProcessServer {
  readonly running: RunningServer;
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: string;
  /** Scheme, host and port, for /healthz, /readyz and the well-known documents. */
  readonly origin: string;
  stop(): Promise<void>;
}

/**
 * `serve()` over HTTP on 127.0.0.1, port 0 unless `env` says otherwise, logs silent unless
 * `env` says otherwise. Only `env` is read: the developer's own MCP_* never leak in.
 */
export async function startServer(env: Readonly<Record<string, string>>): Promise<InProcessServer> {
  const running = await serve({
    env: {
      MCP_TRANSPORT: 'http',
      MCP_HTTP_HOST: '127.0.0.1',
      MCP_HTTP_PORT: '0',
      MCP_LOG_LEVEL: 'silent',
      MCP_LOG_FORMAT: 'json',
      ...env,
    },
  });
  assert.ok(running.url, 'the HTTP transport reports its URL');
  const url = running.url;
  return { running, url, origin: new URL(url).origin, stop: () => running.stop() };
}

/** A port nobody listens on right now (listen on 0, read it, close). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  assert.ok(address !== null && typeof address === 'object');
  return address.port;
}

export interface RpcReply {
  readonly status: number;
  readonly headers: Headers;
  /** The parsed JSON body (undefined for an empty body). */
  readonly body: unknown;
}

/** The JSON-RPC error of a reply body, or undefined. */
export function rpcError(body: unknown): { code: number; message: string; data?: unknown } | undefined {
  return (body as { error?: { code: number; message: string; data?: unknown } } | undefined)?.error;
}

/** The JSON-RPC result of a reply body, or undefined. */
export function rpcResult(body: unknown): Record<string, unknown> | undefined {
  return (body as { result?: Record<string, unknown> } | undefined)?.result;
}

/** POSTs one JSON value to the MCP endpoint; the reply must be JSON (or empty). */
export async function post(
  url: string,
  message: unknown,
  headers: Readonly<Record<string, string>> = {},
): Promise<RpcReply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: JSON.stringify(message),
  });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  let body: unknown;
  if (text !== '' && type.includes('text/event-stream')) {
    // One response on an SSE stream: the last data line carries it.
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trim())
      .filter((l) => l !== '');
    body = JSON.parse(data.at(-1) ?? 'null');
  } else if (text !== '') {
    body = JSON.parse(text);
  }
  return { status: res.status, headers: res.headers, body };
}

/** A 2026-wire request: the envelope in `params._meta` and the routing headers. */
export function request2026(
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
): { message: unknown; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'mcp-protocol-version': V2026, 'mcp-method': method };
  if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  const meta = (params._meta as Record<string, unknown> | undefined) ?? {};
  return {
    message: {
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          ...meta,
          'io.modelcontextprotocol/protocolVersion': V2026,
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    },
    headers,
  };
}

/** A stateless 2026-wire `tools/call` (no session, so it costs exactly one rate-limit token). */
export function callTool2026(
  url: string,
  id: number,
  name: string,
  args: Record<string, unknown> = {},
  headers: Readonly<Record<string, string>> = {},
): Promise<RpcReply> {
  const r = request2026(id, 'tools/call', { name, arguments: args });
  return post(url, r.message, { ...r.headers, ...headers });
}

/** initialize + notifications/initialized on the 2025 wire; returns the session id. */
export async function openSession(
  url: string,
  headers: Readonly<Record<string, string>> = {},
  protocolVersion = V2025,
): Promise<string> {
  const init = await post(
    url,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'batteries-e2e', version: '1.0.0' } },
    },
    headers,
  );
  assert.equal(init.status, 200, JSON.stringify(init.body));
  const session = init.headers.get('mcp-session-id');
  assert.ok(session, 'initialize returns Mcp-Session-Id');
  const sessionHeaders = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': protocolVersion };
  const done = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders);
  assert.equal(done.status, 202);
  return session;
}

/** Connects the official v1 SDK client over streamable HTTP, sending `headers` on every request. */
export async function connectSdk(
  url: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<Client> {
  const client = new Client({ name: 'batteries-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { ...headers } },
  });
  await client.connect(transport);
  return client;
}

/** The text of a tool result's first content block. */
export function textOf(result: unknown): string | undefined {
  const content = (result as { content?: { type: string; text?: string }[] }).content;
  return content?.[0]?.text;
}

/** Parses the JSON lines of a log stream, skipping anything that is not JSON. */
export function logLines(text: string): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // A banner or partial line: not a log record.
    }
  }
  return lines;
}

/** Resolves once `check` returns (or resolves to) true; polls every 25 ms, fails after `timeoutMs`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
