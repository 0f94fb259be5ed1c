/**
 * The context of one request: what the handler sees (`HandlerContext`), what the call wrapper
 * needs of it (`CallContext`: its cancellation and progress state) and what the dispatcher
 * needs to finish it. The request's facts are read from its frozen record (request-record.ts), the one
 * the observer reads too; its abort state is the request's one cancellation mechanism, which it
 * holds (`cancellation`, src/execution/cancellation.ts) and whose signal and abort it hands on.
 * Two objects per request, the context and its cancellation, with their methods on the
 * prototype, so the hot path allocates no closures.
 */
import { type Span, trace } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { InternalCode, ToolkitError } from '../base/errors.ts';
import type { JsonObject, JsonRpcMessage, RequestId } from '../base/jsonrpc.ts';
import type { ClientCapabilities, Implementation } from '../base/spec-types.ts';
import { logFieldsOf, NOOP_SPAN } from '../base/trace-context.ts';
import type { HttpRequestInfo, Identity, LogLevel, Wire } from '../base/types.ts';
import type { CallContext } from '../execution/call.ts';
import { Cancellation } from '../execution/cancellation.ts';
import { ToolError } from '../registry/tool-errors.ts';
import type { InputRequest, InputRequired, JsonSchema } from '../registry/types.ts';
import type { OutboundChannel } from './hub/channel.ts';
import type { RequestRecord } from './request-record.ts';
import type { Session } from './session/store.ts';

const NO_META: JsonObject = Object.freeze({});

/**
 * Where a handler's `upstreamToken()` gets the caller's upstream access token: the
 * authorisation server of `MCP_AUTH=oauth-proxy` (src/auth/oauth-proxy/), given at assembly.
 */
export type UpstreamTokenSource = (
  identity: Identity | undefined,
  options: { forceRefresh?: boolean },
) => Promise<string>;

export class RequestContext implements CallContext {
  // Made per request: fields `private`, not `#private` (V8 defines each `#` field through a
  // keyed store call on every construction: docs/performance.md).
  /**
   * The request's one cancellation: its deadlines (run by the call wrapper), the client's
   * notifications/cancelled, the client going away, a task cancelled and the server stopping
   * all end the request through it, and the first reason is the one kept.
   */
  readonly cancellation = new Cancellation();
  /** What the request said and where it came from, read once when it arrived (request-record.ts). */
  readonly record: RequestRecord;
  /** The live 2025 session (its log level, subscriptions); undefined on the 2026 wire. */
  readonly session: Session | undefined;
  /** When progress was last sent for this request (ms since the epoch), for heartbeats. */
  lastProgressAt = 0;
  /** The last progress value sent (heartbeats go on from it). */
  lastProgress = 0;
  /**
   * The request's server span: the span active where the request is handled (the dispatcher
   * runs it in the span's context), or a non-recording span when tracing is off.
   */
  readonly span: Span;
  readonly channel: OutboundChannel | undefined;
  private readonly _logger: Logger;
  private readonly _upstreamTokens: UpstreamTokenSource | undefined;
  private _childLogger: Logger | undefined;
  inputResponses: Readonly<Record<string, unknown>> | undefined = undefined;
  requestState: unknown = undefined;

  constructor(
    record: RequestRecord,
    init: {
      session: Session | undefined;
      channel: OutboundChannel | undefined;
      logger: Logger;
      upstreamTokens?: UpstreamTokenSource | undefined;
      /** The span the request runs under, when its observer made one; else the active span is asked for. */
      span?: Span | undefined;
    },
  ) {
    this.record = record;
    this.session = init.session;
    this.span = init.span ?? trace.getActiveSpan() ?? NOOP_SPAN;
    this.channel = init.channel;
    this._logger = init.logger;
    this._upstreamTokens = init.upstreamTokens;
  }

  /** The caller's upstream access token (MCP_AUTH=oauth-proxy); see HandlerContext.upstreamToken. */
  upstreamToken(options: { forceRefresh?: boolean } = {}): Promise<string> {
    if (this._upstreamTokens === undefined) {
      return Promise.reject(
        new ToolkitError(
          InternalCode.UpstreamAuth,
          'No upstream token: this server does not sign users in at an upstream provider (MCP_AUTH=oauth-proxy)',
        ),
      );
    }
    return this._upstreamTokens(this.record.identity, options);
  }

  // The request's abort state, as the handler and the dispatcher see it: its cancellation's.

  /** Aborted when the client cancels, the call times out, or the client goes away. */
  get signal(): AbortSignal {
    return this.cancellation.signal;
  }

  get aborted(): boolean {
    return this.cancellation.aborted;
  }

  get abortReason(): unknown {
    return this.cancellation.abortReason;
  }

  /** Ends the request early (src/execution/cancellation.ts: the first reason wins). */
  abort(reason: unknown): void {
    this.cancellation.abort(reason);
  }

  // The request's facts, as the handler sees them: read from the record, never copied.
  get requestId(): RequestId {
    return this.record.requestId;
  }

  get method(): string {
    return this.record.method;
  }

  get wire(): Wire {
    return this.record.wire;
  }

  get inputRoundsInRequest(): boolean {
    return this.record.profile.inputRoundsInRequest;
  }

  get protocolVersion(): string {
    return this.record.protocolVersion;
  }

  get invalidArgumentsAsResult(): boolean {
    return this.record.profile.invalidArgumentsAsResult(this.record.protocolVersion);
  }

  get clientCapabilities(): ClientCapabilities {
    return this.record.clientCapabilities;
  }

  get clientInfo(): Implementation | undefined {
    return this.record.clientInfo;
  }

  get identity(): Identity | undefined {
    return this.record.identity;
  }

  /** The client's network address (HTTP), for per-client limits of anonymous callers. */
  get address(): string | undefined {
    return this.record.address;
  }

  get meta(): JsonObject {
    return this.record.meta ?? NO_META;
  }

  get http(): HttpRequestInfo | undefined {
    return this.record.http;
  }

  /**
   * The 2025-wire session's id. Not the record's `sessionId`: over stdio a 2026-wire request
   * arrives on the connection's session too, which its span names, but it has no session of
   * its own (a task it creates is not bound to the connection).
   */
  get sessionId(): string | undefined {
    return this.session?.id;
  }

  get logger(): Logger {
    // The span's ids join each line to the trace (the field names of OpenTelemetry's pino instrumentation).
    this._childLogger ??= this._logger.child({
      requestId: this.record.requestId,
      method: this.record.method,
      ...logFieldsOf(this.span),
    });
    return this._childLogger;
  }

  private _send(message: JsonRpcMessage): void {
    this.channel?.send(message);
  }

  async closeStream(): Promise<void> {
    await this.channel?.disconnect?.();
  }

  async notify(method: string, params?: JsonObject): Promise<void> {
    this._send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  async progress(progress: number, total?: number, message?: string): Promise<void> {
    const token = this.meta.progressToken;
    if (token === undefined || this.aborted) return;
    this.lastProgressAt = Date.now();
    this.lastProgress = progress;
    const params: JsonObject = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this._send({ jsonrpc: '2.0', method: 'notifications/progress', params });
  }

  async log(level: LogLevel, data: unknown, loggerName?: string): Promise<void> {
    if (!this._shouldLog(level)) return;
    const params: JsonObject = { level, data };
    if (loggerName !== undefined) params.logger = loggerName;
    this._send({ jsonrpc: '2.0', method: 'notifications/message', params });
  }

  private _shouldLog(level: LogLevel): boolean {
    // The wire's rule: the envelope's level (2026, SEP-2577) or the session's (2025).
    return this.record.profile.logs(level, this.record.logLevel, this.session?.logLevel);
  }

  askInput(requests: Record<string, InputRequest>, state?: unknown): InputRequired {
    return { kind: 'input_required', requests, state };
  }

  elicit(params: { message: string; requestedSchema: JsonSchema } & JsonObject): InputRequest {
    return { method: 'elicitation/create', params };
  }

  sample(params: { messages: unknown[]; maxTokens: number } & JsonObject): InputRequest {
    return { method: 'sampling/createMessage', params };
  }

  listRoots(): InputRequest {
    return { method: 'roots/list', params: {} };
  }

  fail(code: string, data?: JsonObject, message?: string): Error {
    return new ToolError(code, { data, message });
  }
}
