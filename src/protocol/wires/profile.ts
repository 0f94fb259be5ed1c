/**
 * A wire profile: every rule that differs between the two protocol generations served on one
 * endpoint, the stateful 2025 wire (`initialize`, sessions; revisions up to 2025-11-25) and the
 * stateless 2026-07-28 wire (the envelope in `params._meta`, `server/discover`, input rounds in
 * results, `resultType`). One profile is chosen per message where it is first classified
 * (classify.ts) and carried on the request's record (`record.profile`); the dispatcher, the
 * input rounds, the tasks and the transports ask it rather than which wire they are on.
 */
import type { ProtocolError } from '../../base/errors.ts';
import type { JsonObject, JsonRpcRequest } from '../../base/jsonrpc.ts';
import type { ClientCapabilities, Implementation } from '../../base/spec-types.ts';
import type { Headers, LogLevel, Wire } from '../../base/types.ts';
import type { InputRequired } from '../../registry/types.ts';
import type { OutboundChannel } from '../hub/channel.ts';
import type { ClientRequests } from '../hub/client-requests.ts';
import type { Session } from '../session/store.ts';
import type { StateCodec } from '../state-codec.ts';
import type { RequestTarget } from '../target.ts';

// The profile is handed the exchange, the record and the request context, which all carry a
// profile themselves; so it declares the little it reads of each (they satisfy these as they
// are), and no file of src/protocol/ imports back the one that imports it.

/** What a wire's checks read of the exchange a request arrived in (`Exchange` is one). */
export interface RouteExchange {
  readonly transport: 'stdio' | 'http';
  readonly headers?: Headers;
  readonly session?: Session;
}

/** What a wire's checks read of the request's record (`RequestRecord` is one). */
export interface RouteRecord {
  readonly target: RequestTarget | undefined;
}

/** What the tasks' rules read of a request (`RequestContext` is one). */
export interface TaskRequest {
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
}

/** What a wire's input rounds read and set on the request they run for (`RequestContext` is one). */
export interface RoundContext {
  readonly method: string;
  readonly signal: AbortSignal;
  readonly channel: OutboundChannel | undefined;
  /** The 2025-wire session a server-to-client request is scoped to. */
  readonly sessionId: string | undefined;
  inputResponses: Readonly<Record<string, unknown>> | undefined;
  requestState: unknown;
}

/** What the input rounds use, built once where the server is assembled (src/protocol/input.ts). */
export interface RoundDeps<C extends RoundContext> {
  /** Where a 2025-wire server-to-client request waits for the client's answer. */
  readonly clientRequests: ClientRequests;
  /** Seals and opens the 2026 `requestState`. */
  readonly codec: StateCodec;
  readonly inputTimeoutMs: number;
  /** What every round goes through before it reaches the client, on any wire (capabilities, notices). */
  admit(ctx: C, round: InputRequired): void;
}

/** What a request says of its client: from the 2026 envelope, or from the 2025 session. */
export interface ClientFacts {
  /** 2026: the envelope's version as sent; 2025: the negotiated one; `''` when there is none. */
  readonly protocolVersion: string;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: ClientCapabilities;
  /** 2026 (SEP-2577): the envelope's log level; 2025: undefined (the session's level applies). */
  readonly logLevel: LogLevel | undefined;
}

/** What the wire answers itself rather than through the method table. */
export type Builtin = 'initialize' | 'ping' | 'discover';

/** The outcome of an input round (src/protocol/input.ts). */
export type InputOutcome<T> = { value: T } | { inputRequired: JsonObject };

/**
 * What a caller of `runInput` does with the outcome, run in the rounds' own reaction: the
 * promise `runInput` returns then settles with what `done` or `failed` returns, without a
 * promise and a turn of the caller's own between (every tool call passes here).
 */
export interface InputFinish<T, R> {
  done(outcome: InputOutcome<T>): R;
  failed(err: unknown): R;
}

/** The fields of a task that its wire shapes show (src/tasks/types.ts `TaskRecord` has them). */
export interface TaskView {
  readonly taskId: string;
  readonly status: string;
  readonly statusMessage?: string | undefined;
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  readonly inputRequests?: unknown;
  readonly result?: JsonObject | undefined;
  readonly error?: JsonObject | undefined;
}

/** How tasks look and are negotiated on one wire (SEP-2663 on 2026, SEP-1686 on 2025-11-25). */
export interface TaskWire {
  /** Whether this `tools/call` asks to run as a task. */
  requested(params: JsonObject | undefined, ctx: TaskRequest): boolean;
  /** The refusal of a tool that runs only as a task, called on a request that cannot take one. */
  required(tool: string): ProtocolError;
  /** Throws unless the request may use `method` of the tasks surface. */
  checkSurface(method: string, ctx: TaskRequest): void;
  /** The lifetime the client asked for (2025 `params.task.ttl`); undefined: the server's. */
  ttlMs(params: JsonObject | undefined): number | undefined;
  /** The result of a `tools/call` that created the task. */
  created(task: TaskView): JsonObject;
  /** The result of `tasks/get`. */
  state(task: TaskView): JsonObject;
  /**
   * Whether `initialize` on `version` declares the top-level `tasks` capability (the core tasks
   * of 2025-11-25, SEP-1686); where this is false the tasks extension, if any, is declared in
   * `capabilities.extensions`.
   */
  declaredAt(version: string): boolean;
  /** The result of `tasks/cancel`; `alreadyEnded`: the task was terminal before the request. */
  cancelled(task: TaskView, alreadyEnded: boolean): JsonObject;
  /** What a task's handler sees of the creating request's `_meta` (2026: no progress token, no progress). */
  meta(meta: JsonObject): JsonObject;
}

export interface WireProfile {
  /** The generation's name, as `ctx.wire`, spans and log lines show it (a later revision of a generation keeps it). */
  readonly wire: Wire;
  /**
   * The revisions this profile speaks, oldest first: each revision of `SUPPORTED_VERSIONS` is
   * spoken by exactly one profile (classify.ts `PROFILES`).
   */
  readonly versions: readonly string[];
  /** Whether requests belong to a session opened by `initialize` (Mcp-Session-Id over HTTP). */
  readonly sessions: boolean;
  /**
   * Whether a call's input rounds run inside its request (2025: server-to-client requests on
   * the call's stream, lost once the call is answered) rather than each ending the request for
   * the client to retry with its answers (2026). Handlers read it as `ctx.inputRoundsInRequest`.
   */
  readonly inputRoundsInRequest: boolean;
  readonly tasks: TaskWire;
  /**
   * Version negotiation (2025-11-25 "Lifecycle"): the version `initialize` answers with when
   * the client asks for `requested`.
   */
  negotiate(requested: unknown): string;
  /**
   * The version a request is served at when no stored session speaks for it (HTTP with
   * `sessions: 'stateless'`): what its `MCP-Protocol-Version` header names.
   */
  headerVersion(headers: Headers | undefined): string;
  /** Whether a JSON-RPC batch is served to a client on `version` (undefined: before `initialize`). */
  allowsBatches(version: string | undefined): boolean;
  /**
   * Whether a tool's invalid arguments answer as an `isError` result naming every violation,
   * which the model can correct (SEP-1303), rather than as a -32602 protocol error.
   */
  invalidArgumentsAsResult(version: string): boolean;
  /** The client's facts for the record, read from the envelope in `meta` or from `session`. */
  clientFacts(meta: JsonObject | undefined, session: Session | undefined): ClientFacts;
  /**
   * The wire's checks, in its order (the 2026 envelope and routing headers; the 2025
   * handshake), then what handles the request: a handler of `methods`, or a builtin. Throws the
   * wire's refusal.
   */
  route<H>(
    req: JsonRpcRequest,
    ex: RouteExchange,
    record: RouteRecord,
    methods: ReadonlyMap<string, H>,
  ): H | Builtin;
  /** -32601 for `message`, with the wire's HTTP status (404 on 2026). */
  methodNotFound(message: string): ProtocolError;
  /** Adds what the wire's results carry (2026: `resultType`, caching hints, the server's identity). */
  completeResult(method: string, result: JsonObject, serverInfo: JsonObject): void;
  /** Whether a log message at `level` goes to the client, given the request's and the session's levels. */
  logs(level: LogLevel, requestLevel: LogLevel | undefined, sessionLevel: LogLevel | undefined): boolean;
  /**
   * Runs `attempt` with the client's answers until it returns something other than an input
   * round: as server-to-client requests on the call's stream (2025), or as an input-required
   * result the client answers with a retry (2026).
   */
  runInput<C extends RoundContext, T, R>(
    ctx: C,
    params: JsonObject | undefined,
    deps: RoundDeps<C>,
    attempt: () => Promise<T | InputRequired>,
    finish: InputFinish<T, R>,
  ): Promise<R>;
  /** Whether a reply stream of `session` may be resumed (2025-11-25 and later). */
  resumable(session: Session): boolean;
  /** The refusal of an `MCP-Protocol-Version` header naming a version this wire does not speak. */
  versionHeaderRefusal(headers: Headers | undefined): ProtocolError | undefined;
}
