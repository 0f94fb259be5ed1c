/**
 * Real-HTTP helpers for the conformance tests: the conformance plugin (plus any test plugin)
 * behind the real MCP routes on 127.0.0.1 and a free port, a fetch-based client for both
 * wires, and an incremental SSE reader that validates every message against the spec schema.
 */
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { pino } from 'pino';
import conformancePlugin from '../../plugins/conformance/index.ts';
import { buildMcpServer, type McpServer } from '../../src/assembly/server.ts';
import { httpOptions } from '../../src/assembly/transport-options.ts';
import { parseSettings } from '../../src/config/settings.ts';
import type { PluginDefinition } from '../../src/plugin/define.ts';
import { parsePluginSettings } from '../../src/plugin/loader.ts';
import type { EventStore } from '../../src/transports/deps.ts';
import { mcpRoutes } from '../../src/transports/http/routes.ts';
import { assertValidServerMessage } from '../helpers/spec-schema.ts';

export const V2025 = '2025-11-25';
export const V2026 = '2026-07-28';

export type Message = Record<string, unknown>;

export interface Fixture {
  readonly url: string;
  readonly server: McpServer;
  close(): Promise<void>;
}

/** Starts the conformance plugin (and `plugins`) behind the MCP routes; `eventStore` swaps the store. */
export async function startFixture(
  options: {
    plugins?: readonly PluginDefinition<never>[];
    env?: Record<string, string>;
    eventStore?: EventStore;
  } = {},
): Promise<Fixture> {
  // A test that fails while a server-to-client request waits for its answer leaves that wait
  // (and its timer) behind: closing the server does not end it, so keep it short enough that a
  // failing run ends in seconds instead of after the 5-minute default.
  const env = {
    MCP_LOG_LEVEL: 'silent',
    MCP_HTTP_HOST: '127.0.0.1',
    MCP_HTTP_PORT: '0',
    MCP_INPUT_TIMEOUT_MS: '10000',
    ...options.env,
  };
  const settings = parseSettings(env);
  const definitions = [conformancePlugin, ...(options.plugins ?? [])] as unknown as PluginDefinition<
    Record<string, unknown>
  >[];
  const server = await buildMcpServer({
    settings,
    logger: pino({ level: 'silent' }),
    plugins: definitions.map((definition) => ({
      definition,
      settings: parsePluginSettings(definition, env),
    })),
  });
  const app = Fastify({ logger: false });
  await app.register(mcpRoutes, { server, http: httpOptions(settings), eventStore: options.eventStore });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  assert.ok(typeof address === 'object' && address);
  return {
    url: `http://127.0.0.1:${address.port}${settings.MCP_HTTP_PATH}`,
    server,
    async close() {
      app.server.closeAllConnections();
      await app.close();
      await server.close();
    },
  };
}

export function request(id: string | number, method: string, params?: Message): Message {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

/** POSTs one message; `headers` add to Content-Type and an Accept that allows both replies. */
export function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
    signal,
  });
}

/** A 2026 request: the envelope in `_meta` and the routing headers (SEP-2243). */
export function post2026(
  url: string,
  id: string | number,
  method: string,
  params: Message = {},
  options: { capabilities?: Message; signal?: AbortSignal } = {},
): Promise<Response> {
  const meta = {
    ...((params._meta as Message | undefined) ?? {}),
    'io.modelcontextprotocol/protocolVersion': V2026,
    'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {
      sampling: {},
      elicitation: {},
      roots: { listChanged: true },
    },
  };
  const headers: Record<string, string> = { 'mcp-protocol-version': V2026, 'mcp-method': method };
  const name = method === 'resources/read' ? params.uri : params.name;
  if (typeof name === 'string') headers['mcp-name'] = name;
  return post(url, request(id, method, { ...params, _meta: meta }), headers, options.signal);
}

/** The 2025 handshake; returns the session id. */
export async function openSession(url: string, capabilities: Message = {}): Promise<string> {
  const res = await post(
    url,
    request(0, 'initialize', {
      protocolVersion: V2025,
      capabilities,
      clientInfo: { name: 'conformance-test', version: '1.0.0' },
    }),
  );
  assert.equal(res.status, 200);
  const session = res.headers.get('mcp-session-id');
  assert.ok(session);
  await res.text();
  const ack = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    sessionHeaders(session),
  );
  assert.equal(ack.status, 202);
  return session;
}

export function sessionHeaders(session: string): Record<string, string> {
  return { 'mcp-session-id': session, 'mcp-protocol-version': V2025 };
}

export interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
  /** The parsed JSON-RPC message; undefined for an empty (priming) event. */
  message?: Message;
}

/**
 * Reads an SSE response event by event (WHATWG HTML §9.2 framing; comments skipped) and
 * checks each JSON-RPC message against the schema of `revision`.
 */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<string>;
  readonly #revision: string;
  readonly #requestMethod: string | undefined;
  #buffer = '';

  constructor(res: Response, revision: string, requestMethod?: string) {
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    this.#reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    this.#revision = revision;
    this.#requestMethod = requestMethod;
  }

  /** The next event, or undefined when the server ended the stream. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const cut = this.#buffer.indexOf('\n\n');
      if (cut >= 0) {
        const block = this.#buffer.slice(0, cut);
        this.#buffer = this.#buffer.slice(cut + 2);
        const event = this.#parse(block);
        if (event) return event;
        continue;
      }
      const chunk = await this.#reader.read();
      if (chunk.done) return undefined;
      this.#buffer += chunk.value;
    }
  }

  /** Every remaining event until the server ends the stream. */
  async rest(): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (let e = await this.next(); e !== undefined; e = await this.next()) events.push(e);
    return events;
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }

  #parse(block: string): SseEvent | undefined {
    const event: SseEvent = { data: '' };
    const data: string[] = [];
    let fields = 0;
    for (const line of block.split('\n')) {
      if (line.startsWith(':') || line === '') continue;
      const colon = line.indexOf(':');
      const name = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      fields++;
      if (name === 'data') data.push(value);
      else if (name === 'id') event.id = value;
      else if (name === 'retry') event.retry = Number(value);
    }
    if (fields === 0) return undefined;
    event.data = data.join('\n');
    if (event.data !== '') {
      const message = JSON.parse(event.data) as Message;
      assertValidServerMessage(
        this.#revision,
        message,
        'method' in message ? undefined : this.#requestMethod,
      );
      event.message = message;
    }
    return event;
  }
}
