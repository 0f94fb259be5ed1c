/**
 * The context of one request: what the handler sees (`HandlerContext`), what the call wrapper
 * needs of it (`CallContext`: abort and progress state) and what the dispatcher needs to
 * finish it. One object per request with its methods on the prototype,
 * so the hot path allocates no closures.
 */
import { type Span, trace } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { JsonObject, JsonRpcMessage, RequestId } from '../base/jsonrpc.ts';
import type { ClientCapabilities, Implementation } from '../base/spec-types.ts';
import { logFieldsOf, NOOP_SPAN } from '../base/trace-context.ts';
import {
  type HttpRequestInfo,
  type Identity,
  type LogLevel,
  logLevelRank,
  type Wire,
} from '../base/types.ts';
import type { CallContext } from '../registry/call.ts';
import { ToolError } from '../registry/tool-errors.ts';
import type { InputRequest, InputRequired, JsonSchema } from '../registry/types.ts';
import type { OutboundChannel } from './hub.ts';
import type { Session } from './session.ts';

export class RequestContext implements CallContext {
  readonly requestId: RequestId;
  readonly method: string;
  readonly wire: Wire;
  readonly protocolVersion: string;
  readonly session: Session | undefined;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly identity: Identity | undefined;
  /** The client's network address (HTTP), for per-client limits of anonymous callers. */
  readonly address: string | undefined;
  readonly meta: JsonObject;
  readonly http: HttpRequestInfo | undefined;
  /** When progress was last sent for this request (ms since the epoch), for heartbeats. */
  lastProgressAt = 0;
  /** The last progress value sent (heartbeats go on from it). */
  lastProgress = 0;
  /**
   * The request's server span: the span active where the request is handled (the dispatcher
   * runs it in the span's context), or a non-recording span when tracing is off.
   */
  readonly span: Span;
  /** Created on first use of `signal`: most handlers never look at it. */
  #controller: AbortController | undefined = undefined;
  #aborted = false;
  #abortReason: unknown = undefined;
  /**
   * The running deadline's hook (src/registry/deadline.ts), told at once when the request is aborted. A
   * plain field instead of an EventTarget listener: the deadline of every call sets one.
   */
  onAbort: ((reason: unknown) => void) | undefined = undefined;
  readonly channel: OutboundChannel | undefined;
  readonly #logger: Logger;
  readonly #logThreshold: LogLevel | undefined;
  #childLogger: Logger | undefined;
  inputResponses: Readonly<Record<string, unknown>> | undefined = undefined;
  requestState: unknown = undefined;

  constructor(init: {
    requestId: RequestId;
    method: string;
    wire: Wire;
    protocolVersion: string;
    session: Session | undefined;
    clientCapabilities: ClientCapabilities;
    clientInfo: Implementation | undefined;
    identity: Identity | undefined;
    address?: string | undefined;
    meta: JsonObject | undefined;
    http?: HttpRequestInfo | undefined;
    channel: OutboundChannel | undefined;
    logger: Logger;
    /** 2026: the envelope's logLevel (no level, no log frames); 2025: the session's. */
    logThreshold: LogLevel | undefined;
  }) {
    this.requestId = init.requestId;
    this.method = init.method;
    this.wire = init.wire;
    this.protocolVersion = init.protocolVersion;
    this.session = init.session;
    this.clientCapabilities = init.clientCapabilities;
    this.clientInfo = init.clientInfo;
    this.identity = init.identity;
    this.address = init.address;
    this.meta = init.meta ?? {};
    this.http = init.http;
    this.span = trace.getActiveSpan() ?? NOOP_SPAN;
    this.channel = init.channel;
    this.#logger = init.logger;
    this.#logThreshold = init.logThreshold;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#abortReason);
    }
    return this.#controller.signal;
  }

  /** True once the request was aborted (timeout, cancellation, client gone). */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** Why the request was aborted; `undefined` while it runs. */
  get abortReason(): unknown {
    return this.#abortReason;
  }

  /** Aborts the request: the handler's signal fires and a waiting deadline rejects. Idempotent. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
    const hook = this.onAbort;
    this.onAbort = undefined;
    hook?.(reason);
  }

  get sessionId(): string | undefined {
    return this.session?.id;
  }

  get logger(): Logger {
    // The span's ids join each line to the trace (the field names of OpenTelemetry's pino instrumentation).
    this.#childLogger ??= this.#logger.child({
      requestId: this.requestId,
      method: this.method,
      ...logFieldsOf(this.span),
    });
    return this.#childLogger;
  }

  #send(message: JsonRpcMessage): void {
    this.channel?.send(message);
  }

  async closeStream(): Promise<void> {
    await this.channel?.disconnect?.();
  }

  async notify(method: string, params?: JsonObject): Promise<void> {
    this.#send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  async progress(progress: number, total?: number, message?: string): Promise<void> {
    const token = this.meta.progressToken;
    if (token === undefined || this.#aborted) return;
    this.lastProgressAt = Date.now();
    this.lastProgress = progress;
    const params: JsonObject = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.#send({ jsonrpc: '2.0', method: 'notifications/progress', params });
  }

  async log(level: LogLevel, data: unknown, loggerName?: string): Promise<void> {
    if (!this.#shouldLog(level)) return;
    const params: JsonObject = { level, data };
    if (loggerName !== undefined) params.logger = loggerName;
    this.#send({ jsonrpc: '2.0', method: 'notifications/message', params });
  }

  #shouldLog(level: LogLevel): boolean {
    // 2026 (SEP-2577): request-scoped, only when the envelope asked for a level.
    // 2025: the session's level; before any logging/setLevel every message goes out.
    const threshold = this.wire === '2026' ? this.#logThreshold : this.session?.logLevel;
    if (threshold === undefined) return this.wire === '2025';
    return logLevelRank(level) >= logLevelRank(threshold);
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
