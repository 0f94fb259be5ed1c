/**
 * TestClient: drives a server in-process with real JSON-RPC messages and real handshake
 * sequencing, through the public server handle (`createServer()` and its `connect()`). Every
 * message is round-tripped through JSON.stringify/JSON.parse in both directions, so anything
 * unserialisable fails in a test rather than against a client.
 */
import { ErrorCode } from '../../base/errors.ts';
import type { JsonObject, JsonRpcMessage, JsonRpcResponse, RequestId } from '../../base/jsonrpc.ts';
import { META } from '../../base/meta-keys.ts';
import type { ClientCapabilities } from '../../base/spec-types.ts';
import { LATEST_2025, VERSION_2026 } from '../../base/versions.ts';
import {
  createServer,
  type Identity,
  type InProcessConnection,
  type RunningServer,
  type ServerOptions,
} from '../../index.ts';

/** A JSON-RPC error answered by the server. */
export class TestClientError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(error: { code: number; message: string; data?: unknown }) {
    super(error.message);
    this.name = 'TestClientError';
    this.code = error.code;
    this.data = error.data;
  }
}

type Answerer = (params: JsonObject) => unknown | Promise<unknown>;

export interface TestClientOptions {
  /** Plugin definitions, or MCP_PLUGINS-style references. */
  plugins?: ServerOptions['plugins'];
  /** MCP_* settings for the in-process server (process.env is not read). */
  env?: Record<string, string>;
  /**
   * Drive a server started with `createServer()` (any transport) instead of building one;
   * several clients may share it, and `close()` leaves it running.
   */
  server?: RunningServer;
  /** Protocol generation: `2025` (initialize handshake, default) or `2026` (stateless envelope). */
  wire?: '2025' | '2026';
  /** 2025 wire: the version sent in initialize (default 2025-11-25). */
  protocolVersion?: string;
  capabilities?: ClientCapabilities;
  clientInfo?: { name: string; version: string };
  /** The caller's identity, as the auth layer would set it. */
  identity?: Identity;
  /** Answers to elicitation, sampling and roots requests (both wires). */
  onElicit?: Answerer;
  onSample?: Answerer;
  onRoots?: Answerer;
  /** Called with every message the server sends (e.g. to validate it against the spec schema). */
  onServerMessage?: (
    message: JsonRpcMessage,
    info: { protocolVersion: string; requestMethod?: string },
  ) => void;
  /** Skip the initialize handshake (2025 wire), to test pre-initialize behaviour. */
  skipInitialize?: boolean;
}

const DEFAULT_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: {},
  roots: { listChanged: true },
};

function roundTrip<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * @example
 * const client = await TestClient.start({ plugins: [myPlugin] });
 * assert.equal(await client.callText('add', { a: 2, b: 3 }), '{"sum":5}');
 * await client.close();
 */
export class TestClient {
  readonly wire: '2025' | '2026';
  /** Every message in both directions, as sent. */
  readonly log: { direction: 'client' | 'server'; message: JsonRpcMessage | JsonRpcMessage[] }[] = [];
  /** Notifications received from the server. */
  readonly notifications: JsonObject[] = [];
  initializeResult: JsonObject | undefined;
  protocolVersion: string;
  readonly #options: TestClientOptions;
  readonly #server: RunningServer;
  readonly #ownsServer: boolean;
  readonly #connection: InProcessConnection;
  readonly #pending = new Map<RequestId, { method: string; resolve: (r: JsonRpcResponse) => void }>();
  readonly #capabilities: ClientCapabilities;
  #nextId = 0;

  private constructor(server: RunningServer, options: TestClientOptions, ownsServer: boolean) {
    this.#server = server;
    this.#options = options;
    this.#ownsServer = ownsServer;
    this.wire = options.wire ?? '2025';
    this.protocolVersion = this.wire === '2026' ? VERSION_2026 : (options.protocolVersion ?? LATEST_2025);
    this.#capabilities = options.capabilities ?? DEFAULT_CAPABILITIES;
    this.#connection = server.connect({
      onMessage: (m) => this.#fromServer(roundTrip(m)),
      identity: options.identity,
    });
  }

  /** Builds an in-process server from plugins and settings, then connects (and initialises on 2025). */
  static async start(options: TestClientOptions = {}): Promise<TestClient> {
    const owns = options.server === undefined;
    // No transport of its own: the messages go through connect(), nothing listens.
    const server =
      options.server ??
      (await createServer({
        plugins: options.plugins ?? [],
        settings: { MCP_LOG_LEVEL: 'silent', ...options.env },
        transport: 'none',
      }));
    const client = new TestClient(server, options, owns);
    if (client.wire === '2025' && !options.skipInitialize) await client.initialize();
    return client;
  }

  /** The 2025 handshake: initialize, then notifications/initialized. */
  async initialize(protocolVersion = this.protocolVersion): Promise<JsonObject> {
    const result = await this.#call('initialize', {
      protocolVersion,
      capabilities: this.#capabilities,
      clientInfo: this.#options.clientInfo ?? { name: 'mcp-toolkit-test-client', version: '0.0.0' },
    });
    this.initializeResult = result;
    this.protocolVersion = String(result.protocolVersion);
    await this.notify('notifications/initialized');
    return result;
  }

  #fromServer(message: JsonRpcMessage | JsonRpcMessage[]): void {
    this.log.push({ direction: 'server', message });
    for (const m of Array.isArray(message) ? message : [message]) {
      const obj = m as unknown as JsonObject;
      const pending = 'id' in obj && !('method' in obj) ? this.#pending.get(obj.id as RequestId) : undefined;
      const result = obj.result as JsonObject | undefined;
      const negotiated =
        pending?.method === 'initialize' && typeof result?.protocolVersion === 'string'
          ? result.protocolVersion
          : this.protocolVersion;
      this.#options.onServerMessage?.(m, {
        protocolVersion: negotiated,
        requestMethod: pending?.method,
      });
      if (pending) {
        this.#pending.delete(obj.id as RequestId);
        pending.resolve(m as JsonRpcResponse);
      } else if ('method' in obj && 'id' in obj) {
        void this.#answerServerRequest(obj);
      } else if ('method' in obj) {
        this.notifications.push(obj);
      }
    }
  }

  async #answerServerRequest(req: JsonObject): Promise<void> {
    let response: JsonObject;
    try {
      const result = await this.#answer(String(req.method), (req.params as JsonObject) ?? {});
      response = { jsonrpc: '2.0', id: req.id, result };
    } catch (err) {
      response = {
        jsonrpc: '2.0',
        id: req.id,
        error: { code: ErrorCode.InternalError, message: (err as Error).message },
      };
    }
    this.#toServer(response);
  }

  async #answer(method: string, params: JsonObject): Promise<unknown> {
    const answerer =
      method === 'elicitation/create'
        ? this.#options.onElicit
        : method === 'sampling/createMessage'
          ? this.#options.onSample
          : method === 'roots/list'
            ? this.#options.onRoots
            : undefined;
    if (!answerer) throw new Error(`TestClient has no answer for ${method}`);
    return answerer(params);
  }

  #toServer(message: unknown): Promise<void> {
    const wire = roundTrip(message);
    this.log.push({ direction: 'client', message: wire as JsonRpcMessage });
    return this.#connection.send(wire);
  }

  #envelope(params: JsonObject | undefined): JsonObject {
    if (this.wire !== '2026') return params ?? {};
    const meta = { ...((params?._meta as JsonObject | undefined) ?? {}) };
    meta[META.protocolVersion] ??= VERSION_2026;
    meta[META.clientCapabilities] ??= this.#capabilities;
    return { ...params, _meta: meta };
  }

  async #call(method: string, params: JsonObject | undefined): Promise<JsonObject> {
    const response = await this.send({
      jsonrpc: '2.0',
      id: ++this.#nextId,
      method,
      params: this.#envelope(params),
    });
    if (!response || Array.isArray(response)) throw new Error(`No response to ${method}`);
    if ('error' in response) throw new TestClientError(response.error);
    return response.result;
  }

  /**
   * Sends one raw message (or batch) and resolves with the response(s); undefined for
   * notifications. Nothing is added: use it for malformed or hand-built messages.
   */
  async send(message: unknown): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
    const answers = new Map<RequestId, JsonRpcResponse>();
    const ids: RequestId[] = [];
    for (const m of Array.isArray(message) ? message : [message]) {
      const o = m as JsonObject | null;
      if (
        o &&
        typeof o === 'object' &&
        typeof o.method === 'string' &&
        (typeof o.id === 'string' || typeof o.id === 'number')
      ) {
        const id = o.id;
        ids.push(id);
        this.#pending.set(id, { method: o.method, resolve: (r) => answers.set(id, r) });
      }
    }
    const before = this.log.length;
    // receive() resolves once the server has answered (or decided not to).
    await this.#toServer(message);
    for (const id of ids) this.#pending.delete(id);
    const direct = this.log
      .slice(before)
      .find((e) => e.direction === 'server' && (Array.isArray(e.message) || !('method' in e.message)));
    if (Array.isArray(direct?.message)) return direct.message as JsonRpcResponse[];
    if (ids.length === 0) return direct?.message as JsonRpcResponse | undefined;
    return answers.get(ids[0] as RequestId) ?? (direct?.message as JsonRpcResponse | undefined);
  }

  /** Sends a request (with the 2026 envelope on that wire) and returns its result; throws TestClientError. */
  request(method: string, params?: JsonObject): Promise<JsonObject> {
    return this.#call(method, params);
  }

  async notify(method: string, params?: JsonObject): Promise<void> {
    const message: JsonObject = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    await this.#toServer(message);
  }

  /**
   * Calls a tool with its arguments as one object (so an argument called `name` never
   * collides). Input rounds are answered with onElicit/onSample/onRoots on both wires.
   */
  async callTool(name: string, args: JsonObject = {}): Promise<JsonObject> {
    return this.#withInputRounds('tools/call', { name, arguments: args });
  }

  /** The tool's text content, joined by newlines. */
  async callText(name: string, args: JsonObject = {}): Promise<string> {
    const result = await this.callTool(name, args);
    return ((result.content as JsonObject[] | undefined) ?? [])
      .filter((c) => c.type === 'text')
      .map((c) => String(c.text))
      .join('\n');
  }

  async getPrompt(name: string, args: Record<string, string> = {}): Promise<JsonObject> {
    return this.#withInputRounds('prompts/get', { name, arguments: args });
  }

  async readResource(uri: string): Promise<JsonObject> {
    return this.#withInputRounds('resources/read', { uri });
  }

  /** Every tool, following nextCursor through all pages. */
  async listTools(): Promise<JsonObject[]> {
    const tools: JsonObject[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request('tools/list', cursor === undefined ? {} : { cursor });
      tools.push(...(page.tools as JsonObject[]));
      cursor = page.nextCursor as string | undefined;
    } while (cursor !== undefined);
    return tools;
  }

  async #withInputRounds(method: string, params: JsonObject): Promise<JsonObject> {
    let result = await this.#call(method, params);
    for (let round = 0; result.resultType === 'input_required' && round < 16; round++) {
      const requests = (result.inputRequests as Record<string, { method: string; params: JsonObject }>) ?? {};
      const inputResponses: Record<string, unknown> = {};
      for (const [key, req] of Object.entries(requests)) {
        inputResponses[key] = await this.#answer(req.method, req.params ?? {});
      }
      const retry: JsonObject = { ...params, inputResponses };
      if (result.requestState !== undefined) retry.requestState = result.requestState;
      result = await this.#call(method, retry);
    }
    return result;
  }

  /** Resolves when every message sent so far has been answered. */
  drain(): Promise<void> {
    return this.#connection.drain();
  }

  async close(): Promise<void> {
    await this.#connection.drain();
    this.#connection.close();
    if (this.#ownsServer) await this.#server.close();
  }
}
