/**
 * The small pieces of tracing that the request path needs whether tracing is on or off: the
 * non-recording span handlers see when it is off, and the log fields that join a log line to
 * a span. Kept apart from the SDK code so that loading them costs nothing.
 */
import { INVALID_SPAN_CONTEXT, isSpanContextValid, type Span, trace } from '@opentelemetry/api';

/** The fields that join a log line to its span (OpenTelemetry's pino instrumentation names them so). */
export interface TraceLogFields {
  readonly trace_id: string;
  readonly span_id: string;
  readonly trace_flags: string;
}

/** A span that records nothing (tracing off): every call on it is safe and does nothing. */
export const NOOP_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * `trace_id`, `span_id` and `trace_flags` (two hex digits) of a span; undefined for a span
 * with no real ids (tracing off).
 *
 * @example
 * logger.info({ ...logFieldsOf(ctx.span) }, 'cache miss');
 */
export function logFieldsOf(span: Span): TraceLogFields | undefined {
  const sc = span.spanContext();
  if (!isSpanContextValid(sc)) return undefined;
  return {
    trace_id: sc.traceId,
    span_id: sc.spanId,
    trace_flags: sc.traceFlags.toString(16).padStart(2, '0'),
  };
}
