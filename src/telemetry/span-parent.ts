/**
 * The parent of a request's span, as the MCP semantic conventions say ("Context
 * propagation"): read from `params._meta` or the HTTP headers with the configured propagator.
 */
import {
  type Context,
  context,
  isSpanContextValid,
  type Link,
  propagation,
  type SpanContext,
  type TextMapGetter,
  trace,
} from '@opentelemetry/api';

export type Carrier = Readonly<Record<string, unknown>>;

// W3C Trace Context §3.2/§3.3 and W3C Baggage §3.3.1: a traceparent is 55 characters, a
// tracestate is at most 512 and a baggage 8,192; anything far longer is not worth parsing.
const MAX_CARRIED = 8192;

/** Reads string values (or the first of a header's list) from `_meta` or HTTP headers, bounded. */
const getter: TextMapGetter<Carrier> = {
  keys: (carrier) => Object.keys(carrier),
  get(carrier, key) {
    const value = carrier[key];
    const text = Array.isArray(value) ? value[0] : value;
    return typeof text === 'string' && text.length <= MAX_CARRIED ? text : undefined;
  },
};

const validSpanOf = (ctx: Context): SpanContext | undefined => {
  const sc = trace.getSpanContext(ctx);
  return sc !== undefined && isSpanContextValid(sc) ? sc : undefined;
};

/**
 * Whether a carrier holds any key the propagators read. `keys` undefined: unknown (an
 * application's propagator), so it may. A propagator given a carrier without its keys returns
 * the context it was given; skipping it is the same answer without the work.
 */
function carries(carrier: Carrier, keys: readonly string[] | undefined): boolean {
  if (keys === undefined) return true;
  for (const key of keys) if (carrier[key] !== undefined) return true;
  return false;
}

/**
 * The carrier keys the propagators `OTEL_PROPAGATORS` names read when extracting (W3C Trace
 * Context, W3C Baggage, B3 single and multi header: a B3 propagator reads both encodings,
 * whichever it injects, and the multi-header one needs `x-b3-traceid`).
 */
export function extractKeysOf(propagators: readonly string[]): readonly string[] {
  const keys = new Set<string>();
  for (const name of propagators) {
    if (name === 'tracecontext') keys.add('traceparent');
    else if (name === 'baggage') keys.add('baggage');
    else if (name === 'b3' || name === 'b3multi') {
      keys.add('b3');
      keys.add('x-b3-traceid');
    }
  }
  return Object.freeze([...keys]);
}

const sameSpan = (a: SpanContext, b: SpanContext) => a.traceId === b.traceId && a.spanId === b.spanId;

/**
 * The parent of a request's span (MCP semantic conventions, "Context propagation"): the
 * context in `params._meta`, extracted with the configured propagator; without one the
 * ambient context (an instrumented HTTP server's span); else the HTTP `traceparent` header.
 * When `_meta` names a parent and the ambient or header context is another span, that one is
 * linked. Baggage in `_meta` joins the context the handler runs in.
 */
export function parentOf(
  meta: Carrier | undefined,
  headers: Carrier | undefined,
  extractKeys?: readonly string[],
): { parent: Context; links?: Link[] } {
  const ambient = context.active();
  const ambientSpan = validSpanOf(ambient);
  const header =
    ambientSpan === undefined && headers !== undefined && carries(headers, extractKeys)
      ? propagation.extract(ambient, headers, getter)
      : undefined;
  const headerSpan = header === undefined ? undefined : validSpanOf(header);
  const transport = ambientSpan ?? headerSpan;
  if (meta !== undefined && carries(meta, extractKeys)) {
    const fromMeta = propagation.extract(ambient, meta, getter);
    const metaSpan = validSpanOf(fromMeta);
    if (metaSpan !== undefined && (ambientSpan === undefined || !sameSpan(metaSpan, ambientSpan))) {
      return transport !== undefined && !sameSpan(metaSpan, transport)
        ? { parent: fromMeta, links: [{ context: transport }] }
        : { parent: fromMeta };
    }
    if (headerSpan === undefined) return { parent: fromMeta };
  }
  return { parent: headerSpan !== undefined && header !== undefined ? header : ambient };
}
