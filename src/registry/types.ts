/**
 * What a plugin author writes: tool, resource, template and prompt definitions, and the
 * context every handler receives. Transport- and wire-agnostic by design.
 */

import type { Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { JsonObject, RequestId } from '../base/jsonrpc.ts';
import type {
  CallToolResult,
  ClientCapabilities,
  ContentBlock,
  GetPromptResult,
  Implementation,
  PromptMessage,
  ReadResourceResult,
  ToolAnnotations,
} from '../base/spec-types.ts';
import type { HttpRequestInfo, Identity, LogLevel, Wire } from '../base/types.ts';
import type { ToolUi } from './tool-ui.ts';

export type {
  CallToolResult,
  ContentBlock,
  GetPromptResult,
  PromptMessage,
  ReadResourceResult,
  ToolAnnotations,
};

/** A raw JSON Schema object, published verbatim and validated with a real JSON Schema validator. */
export type JsonSchema = { [key: string]: unknown };

/** A request the server asks the client to answer (elicitation, sampling or roots). */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params: JsonObject;
}

/** What a handler can ask the client for in an input round (its client capability). */
export type ClientFeature = 'elicitation' | 'sampling' | 'roots';

/** Returned by `ctx.askInput(...)`: ends the round; the framework collects the answers. */
export interface InputRequired {
  readonly kind: 'input_required';
  readonly requests: Readonly<Record<string, InputRequest>>;
  readonly state: unknown;
}

/**
 * Sends `notifications/message` to the client, gated by the level the client asked for.
 *
 * @deprecated MCP 2026-07-28 deprecates Logging (SEP-2577; removal no earlier than 2027-07-28).
 * It is still served to clients that ask for it; log server-side with `ctx.logger` instead.
 */
export type ClientLog = (level: LogLevel, data: unknown, loggerName?: string) => Promise<void>;

/** What every tool, resource and prompt handler receives. */
export interface HandlerContext {
  /** Aborted when the client cancels, the call times out, or the connection goes away. */
  readonly signal: AbortSignal;
  /** Request-scoped pino logger (stderr): server-side logs. */
  readonly logger: Logger;
  /**
   * Log to the client (`notifications/message`), when the client asked for that level.
   *
   * @deprecated MCP 2026-07-28 deprecates Logging (SEP-2577; removal no earlier than
   * 2027-07-28). It is still served to clients that ask for a level; log server-side with
   * `ctx.logger` instead.
   */
  log(level: LogLevel, data: unknown, loggerName?: string): Promise<void>;
  /** Report progress; a no-op unless the request carried a progressToken. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /**
   * Closes this request's SSE connection while the call goes on (2025 HTTP, SEP-1699): the
   * client reconnects with Last-Event-ID and receives the rest. A no-op elsewhere.
   */
  closeStream(): Promise<void>;
  /** Send a notification to this request's client (on the request's stream where there is one). */
  notify(method: string, params?: JsonObject): Promise<void>;
  readonly requestId: RequestId;
  readonly protocolVersion: string;
  readonly wire: Wire;
  /**
   * Whether this call's input rounds (`askInput`) run inside its request: the client answers
   * on the call's own stream, so a round still open once the handler has returned is lost
   * (true), or each round ends the request and the client retries the call with its answers,
   * maybe on another replica (false). Code that holds something between rounds (the proxy
   * plugin holds the upstream's call) reads this rather than `wire`.
   */
  readonly inputRoundsInRequest: boolean;
  /** The 2025-wire session id, when there is one. */
  readonly sessionId: string | undefined;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  /** The authenticated caller, when auth is on. */
  readonly identity: Identity | undefined;
  /** The request's `_meta`, as sent. */
  readonly meta: JsonObject;
  /**
   * The request's OpenTelemetry server span (`tools/call add`, ...), for attributes and
   * events of your own. The handler runs inside its context, so `trace.getActiveSpan()` is
   * this span, spans you start are its children, and instrumented clients (fetch, http, pg,
   * ioredis, ...) carry its trace onward. A non-recording span when tracing is off: calls on
   * it are safe and do nothing. Lines logged through `ctx.logger` carry its `trace_id` and
   * `span_id`.
   *
   * @example
   * ctx.span.setAttribute('app.rows', rows.length);
   * ctx.span.addEvent('cache miss', { key });
   */
  readonly span: Span;
  /**
   * Answers from the client to the previous round's input requests, by the keys the handler
   * chose; undefined on the first round.
   */
  readonly inputResponses: Readonly<Record<string, unknown>> | undefined;
  /** The state the handler attached to the previous round; undefined on the first round. */
  readonly requestState: unknown;
  /** Ends this round by asking the client for input; return its result from the handler. */
  askInput(requests: Record<string, InputRequest>, state?: unknown): InputRequired;
  /** Builds an `elicitation/create` input request. */
  elicit(params: { message: string; requestedSchema: JsonSchema } & JsonObject): InputRequest;
  /**
   * Builds a `sampling/createMessage` input request.
   *
   * @deprecated MCP 2026-07-28 deprecates Sampling (SEP-2577; removal no earlier than
   * 2027-07-28). It is still served to clients that declare `sampling`; declare
   * `asks: ['sampling']` on the tool and the server warns once at start.
   */
  sample(params: { messages: unknown[]; maxTokens: number } & JsonObject): InputRequest;
  /**
   * Builds a `roots/list` input request.
   *
   * @deprecated MCP 2026-07-28 deprecates Roots (SEP-2577; removal no earlier than
   * 2027-07-28). It is still served to clients that declare `roots`; take paths as tool
   * arguments or settings instead.
   */
  listRoots(): InputRequest;
  /**
   * A declared failure of this tool, to throw: `throw ctx.fail('not_found', { path })`. The
   * client gets an `isError` result saying what happened, whether a retry can help and what
   * to do instead (from the tool's `errors`), plus a `structuredContent` error object.
   */
  fail(code: string, data?: JsonObject, message?: string): Error;
  /**
   * The HTTP request behind this call (HTTP transport only; `undefined` on stdio): method,
   * path and headers, with credentials (`Authorization`, `Cookie`, `X-API-Key`, ...) removed.
   */
  readonly http: HttpRequestInfo | undefined;
  /**
   * The caller's access token at the upstream identity provider they signed in with
   * (`MCP_AUTH=oauth-proxy`): for calling that provider's API (GitHub, the company API) as the
   * user. Refreshed first when it has expired (`forceRefresh`: the API answered 401 anyway).
   * Keep it out of results and logs. Rejects with `ERR_MCP_UPSTREAM_AUTH` when there is none
   * (another auth mode, or the upstream sign-in has ended and the user must sign in again).
   *
   * @example
   * const res = await fetch('https://api.github.com/user/repos', {
   *   headers: { authorization: `Bearer ${await ctx.upstreamToken()}` },
   * });
   */
  upstreamToken(options?: { forceRefresh?: boolean }): Promise<string>;
}

/** A failure a tool declares it can have (`errors` on the tool), by code. */
export interface DeclaredToolError {
  /** Whether the same call may succeed later (a rate limit, a busy upstream). Default false. */
  readonly retryable?: boolean;
  /** What the model (or program) should do instead, e.g. "list the folder first". */
  readonly hint?: string;
  /** The default message, when the throw gives none. */
  readonly message?: string;
}

/**
 * Who may see and use an item, beyond per-item scopes: called with the authenticated caller
 * (never when auth is off). Hidden items are left out of lists and answer as unknown.
 */
export type VisibilityRule = (identity: Identity) => boolean;

/**
 * Everything a tool handler may return, whatever its schemas. {@link ToolOutput} narrows it
 * to what the tool's own output schema allows.
 */
export type ToolReturn<O> = O | string | ContentBlock[] | CallToolResult | InputRequired | ToolResult<O>;

/** An explicit tool result, for a handler that wants to shape content and structured output itself. */
export interface ToolResult<O> {
  readonly kind: 'tool_result';
  readonly content?: ContentBlock[];
  readonly structured?: O;
  readonly isError?: boolean;
  readonly meta?: JsonObject;
}

/** A tool's input or output schema: zod (converted to JSON Schema once) or raw JSON Schema (verbatim). */
export type ToolSchema = z.ZodType | JsonSchema;

/** The arguments a handler receives: the input schema's parsed output (any object for a raw JSON Schema). */
export type ToolInput<In extends ToolSchema | undefined> = In extends z.ZodType
  ? z.output<In>
  : Record<string, unknown>;

/**
 * What a handler may return for its output schema. With one, the structured value (checked
 * against the schema, sent as `structuredContent` plus a text block), a {@link ToolResult}
 * carrying it, or a request for client input; a string or bare content would break the
 * schema, so it is a type error. Without one: text, content blocks, a full result, or any
 * JSON value (sent as text).
 */
export type ToolOutput<Out extends ToolSchema | undefined> = Out extends z.ZodType
  ? z.input<Out> | ToolResult<z.input<Out>> | InputRequired
  : Out extends JsonSchema
    ? JsonObject | ToolResult<JsonObject> | InputRequired
    : ToolReturn<unknown>;

export interface ToolSpec<
  In extends ToolSchema | undefined = ToolSchema | undefined,
  Out extends ToolSchema | undefined = ToolSchema | undefined,
> {
  /** 1-64 characters of [A-Za-z0-9_./-]. */
  name: string;
  title?: string;
  description: string;
  /** zod schema (converted to JSON Schema once, at registration) or raw JSON Schema (verbatim). */
  input?: In;
  output?: Out;
  annotations?: ToolAnnotations;
  /** Example arguments, published as `inputSchema.examples` (used by `mcp-toolkit test`). */
  examples?: readonly Record<string, unknown>[];
  /** Scopes the caller needs for this tool (an OAuth token's or a scoped API key's). */
  scopes?: readonly string[];
  /** Who else may see and call it (see VisibilityRule). */
  visible?: VisibilityRule;
  /** Overrides MCP_TOOL_TIMEOUT_MS for this tool. */
  timeoutMs?: number;
  /**
   * While the handler runs and the request carried a progressToken, send a progress
   * notification every this many ms when the handler has sent none itself (so clients that
   * reset their timeout on progress keep waiting). Overrides MCP_PROGRESS_HEARTBEAT_MS; 0 turns it off.
   */
  heartbeatMs?: number;
  /** The failures this tool can have, by code (thrown with `ctx.fail(code)` or `new ToolError(code)`). */
  errors?: Readonly<Record<string, DeclaredToolError>>;
  /** Also list the declared error codes in the description the model reads. Default false. */
  describeErrors?: boolean;
  /**
   * Also put a thrown ToolError's `{ error }` object in `structuredContent` (it is always in
   * the result's `_meta`). Default false: the official v1 client validates `structuredContent`
   * against the output schema even on error results, so opt in only when the output schema
   * admits `{ error }` or your clients do not validate.
   */
  structuredErrors?: boolean;
  /**
   * What the handler asks the client for with `ctx.askInput` (`ctx.elicit`, `ctx.sample`,
   * `ctx.listRoots`). Sampling and roots are deprecated in MCP 2026-07-28 (SEP-2577): a tool
   * that declares them gets one warning when the server starts; one that uses them without
   * declaring them gets it on its first such round instead.
   */
  asks?: readonly ClientFeature[];
  /** Per-tool rate limit on top of the per-client one. */
  rateLimit?: { rps: number; burst?: number };
  icons?: JsonObject[];
  /**
   * Links the tool to a view made with `defineApp` (MCP Apps, `_meta.ui` on the tool): hosts
   * that support the extension render the result in it. `visibility: ['app']` keeps the tool
   * out of the model's tools/list while its view can still call it through the host.
   */
  ui?: ToolUi;
  _meta?: JsonObject;
  /**
   * Long-running work: the call may run as a task the client polls (2026 extension
   * `io.modelcontextprotocol/tasks`, SEP-2663; 2025-11-25 `execution.taskSupport`, SEP-1686).
   * `optional`: a task when the client can take one, else a plain call; `required`: only as
   * a task (a client that cannot take one gets -32021 on 2026, -32601 on 2025). The handler
   * is the same either way; inside a task its deadline is `timeoutMs`, else MCP_TASK_TTL_MS.
   */
  task?: 'optional' | 'required';
  /**
   * With `task`: runs on the call itself before the task is created, and may ask for input
   * there (ordinary input rounds); return nothing to go on. The handler then starts in the
   * task with the answers of those rounds in `ctx.inputResponses`.
   */
  beforeTask?: (
    args: ToolInput<In>,
    ctx: HandlerContext,
  ) => InputRequired | undefined | Promise<InputRequired | undefined>;
}

/** A tool's handler: typed arguments in, a result its output schema accepts out. */
export type ToolHandler<
  In extends ToolSchema | undefined = ToolSchema | undefined,
  Out extends ToolSchema | undefined = ToolSchema | undefined,
> = (args: ToolInput<In>, ctx: HandlerContext) => ToolOutput<Out> | Promise<ToolOutput<Out>>;

export interface ResourceSpec {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: JsonObject;
  /** Scopes the caller needs to see and use it (an OAuth token's or a scoped API key's). */
  scopes?: readonly string[];
  /** Who else may see and use it (see VisibilityRule). */
  visible?: VisibilityRule;
  _meta?: JsonObject;
}

/** What a resource reader may return: text, `{ blob }` (base64), or full contents. */
export type ResourceReturn =
  | string
  | { text: string; mimeType?: string }
  | { blob: string; mimeType?: string }
  | ReadResourceResult['contents']
  | InputRequired;

export type ResourceReader = (uri: string, ctx: HandlerContext) => ResourceReturn | Promise<ResourceReturn>;

/** Completion of one argument or template variable: returns candidate values. */
export type Completer = (
  value: string,
  context: { arguments: Readonly<Record<string, string>>; ctx: HandlerContext },
) => string[] | Promise<string[]>;

export interface ResourceTemplateSpec {
  /** RFC 6570 level-1 template, e.g. `file:///{path}` (a `{+path}` variable may span slashes). */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Completion per template variable. */
  complete?: Record<string, Completer>;
  /** Scopes the caller needs to see and use it (an OAuth token's or a scoped API key's). */
  scopes?: readonly string[];
  /** Who else may see and use it (see VisibilityRule). */
  visible?: VisibilityRule;
  _meta?: JsonObject;
}

export type TemplateReader = (
  uri: string,
  variables: Readonly<Record<string, string>>,
  ctx: HandlerContext,
) => ResourceReturn | Promise<ResourceReturn>;

export interface PromptArgumentSpec {
  name: string;
  description?: string;
  required?: boolean;
  complete?: Completer;
}

export interface PromptSpec {
  name: string;
  title?: string;
  description: string;
  arguments?: readonly PromptArgumentSpec[];
  /** Scopes the caller needs to see and use it (an OAuth token's or a scoped API key's). */
  scopes?: readonly string[];
  /** Who else may see and use it (see VisibilityRule). */
  visible?: VisibilityRule;
  _meta?: JsonObject;
}

/** A prompt returns messages (or a full result with a description). */
export type PromptReturn = PromptMessage[] | GetPromptResult | string | InputRequired;

export type PromptHandler = (
  args: Readonly<Record<string, string>>,
  ctx: HandlerContext,
) => PromptReturn | Promise<PromptReturn>;
