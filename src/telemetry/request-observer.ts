/**
 * The dispatcher's `observe` hook built from the two telemetry parts: a server span per
 * request (tracing.ts), inside whose context the request is handled, and one log line per
 * request (logger.ts), both closed with the request's outcome. Both read the request's record
 * (src/protocol/request-record.ts), the one the request context reads, as it is.
 */
import { context, type Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { ProtocolError, ToolkitError } from '../base/errors.ts';
import type { JsonObject } from '../base/jsonrpc.ts';
import type { ObservedRequest, RequestObserver, RequestOutcomeInfo } from '../protocol/observer.ts';
import type { RequestRecord } from '../protocol/request-record.ts';
import { requestLogLine } from './logger.ts';
import { Attr } from './semconv.ts';
import { NOOP_REQUEST_SPAN, type RequestSpan, type SpanOutcome, type Telemetry } from './tracing.ts';

export interface RequestObserverOptions {
  readonly telemetry: Telemetry;
  readonly logger: Logger;
}

const SUCCESS: SpanOutcome = Object.freeze({ isError: false });
// A span status description is for people; a tool's whole output is not.
const MAX_DESCRIPTION = 1024;

/** The text of an `isError` result (what the model sees), as the span status description. */
function toolErrorText(result: JsonObject): string | undefined {
  const content = result.content;
  if (!Array.isArray(content)) return undefined;
  for (const block of content) {
    const text = (block as { type?: unknown; text?: unknown } | null)?.text;
    if (typeof text === 'string')
      return text.length > MAX_DESCRIPTION ? text.slice(0, MAX_DESCRIPTION) : text;
  }
  return undefined;
}

/**
 * `error.type`, JSON-RPC code and description of an outcome: a protocol error by its code,
 * an internal error by its stable code, anything else by its class name (all low-cardinality).
 */
function spanOutcomeOf(outcome: RequestOutcomeInfo): SpanOutcome {
  const { error } = outcome;
  if (error === undefined) {
    return outcome.result?.isError === true
      ? { isError: true, message: toolErrorText(outcome.result) }
      : SUCCESS;
  }
  if (error instanceof ProtocolError) return { code: error.code, message: error.message };
  if (error instanceof ToolkitError) return { error: error.code, message: error.message };
  return { error: error.name || 'Error', message: error.message };
}

/** One request under observation: its span, and the work run inside the span's context. */
class Observed implements ObservedRequest {
  // Made per request: fields `private`, not `#private` (V8 defines each `#` field through a
  // keyed store call on every construction: docs/performance.md).
  private readonly _span: RequestSpan;
  private readonly _traced: boolean;
  private readonly _telemetry: Telemetry;
  private readonly _logger: Logger;
  private readonly _record: RequestRecord;
  private readonly _started = performance.now();

  constructor(telemetry: Telemetry, logger: Logger, record: RequestRecord) {
    this._telemetry = telemetry;
    this._logger = logger;
    this._record = record;
    this._traced = telemetry.enabled;
    // The span reads the record itself: its attributes, and at the end its metrics'.
    this._span = telemetry.enabled ? telemetry.startRequestSpan(record) : NOOP_REQUEST_SPAN;
  }

  get span(): Span | undefined {
    return this._traced ? this._span.span : undefined;
  }

  run<R>(fn: () => R): R {
    // `context.with`: spans a handler starts are children of ours, and instrumented clients
    // (fetch, http, database drivers) propagate it.
    if (!this._traced) return fn();
    return context.with(this._span.context, fn);
  }

  end(outcome: RequestOutcomeInfo): void {
    const record = this._record;
    const span = this._span;
    if (this._traced) {
      // `initialize`: the negotiated version and the new session are known only now.
      const session = outcome.session;
      if (session !== undefined) {
        span.setAttribute(Attr.McpSessionId, session.id);
        if (session.protocolVersion !== '')
          span.setAttribute(Attr.McpProtocolVersion, session.protocolVersion);
        if (record.transport !== undefined)
          this._telemetry.sessionStarted({
            id: session.id,
            protocolVersion: session.protocolVersion,
            transport: record.transport,
            httpVersion: record.httpVersion,
          });
      }
      span.end(spanOutcomeOf(outcome));
    }
    // Request lines are info: below the level, build nothing (the common production case).
    if (!this._logger.isLevelEnabled('info')) return;
    requestLogLine(this._logger, record, {
      outcome: outcome.error !== undefined ? 'error' : outcome.result?.isError === true ? 'tool_error' : 'ok',
      durationMs: performance.now() - this._started,
      trace: span.logFields,
      sessionId: record.sessionId ?? outcome.session?.id,
    });
  }
}

/**
 * Builds the dispatcher's request observer: starts the span at request entry (its parent as
 * the MCP conventions say: `params._meta`, else the ambient context, else the HTTP
 * `traceparent` header), runs the request in the span's context, and on the outcome ends the
 * span and writes the request's log line with the span's `trace_id`, `span_id` and
 * `trace_flags`. Tool arguments reach the log line only if the logger allows it.
 *
 * @example
 * createServer({ settings, plugins, logger, observe: createRequestObserver({ telemetry, logger }) });
 */
export function createRequestObserver(options: RequestObserverOptions): RequestObserver {
  const { telemetry, logger } = options;
  return {
    start: (record: RequestRecord) => new Observed(telemetry, logger, record),
  };
}
