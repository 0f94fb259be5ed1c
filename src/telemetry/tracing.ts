/**
 * The server's telemetry: one OpenTelemetry SERVER span per MCP request, from the global
 * TracerProvider through the OpenTelemetry API (`trace.getTracer('mcp-toolkit', version)`),
 * the MCP metrics, and spans for requests refused at the HTTP edge.
 *
 * One pipeline: when the application registered a TracerProvider before the server starts
 * (a preloaded `@opentelemetry/sdk-node`), its provider, propagator and meter provider are
 * used and nothing of ours is exported. Otherwise, when an OTLP endpoint is configured, the
 * Node SDK is started and registered globally (sdk-pipeline.ts), so the spans that plugins
 * and instrumentations create go out with ours. With neither, nothing is loaded and every
 * call is a no-op.
 */
import { type Context, ROOT_CONTEXT, type Span, trace } from '@opentelemetry/api';
import { NOOP_SPAN, type TraceLogFields } from '../base/trace-context.ts';
import type { TracingConfig } from './otel-settings.ts';
import type { PrometheusTarget } from './prometheus.ts';
import type { RefusalInfo, RequestSpanInfo, SessionInfo } from './request-span.ts';
import { NOOP_ROUTE_SPAN, type RouteSpan, type RouteSpanInfo } from './route-span.ts';
import type { ExportErrorHandler } from './sdk-pipeline.ts';
import { SCOPE_NAME } from './semconv.ts';

export { NOOP_SPAN, type TraceLogFields } from '../base/trace-context.ts';
export type { PrometheusTarget } from './prometheus.ts';
export type { RefusalInfo, RequestSpanInfo, SessionInfo } from './request-span.ts';
export type { RouteSpan, RouteSpanInfo } from './route-span.ts';

/** How a request ended. */
export interface SpanOutcome {
  /** An explicit `error.type` (an internal error code, an error class); wins over `code`. */
  readonly error?: string;
  /** The tool result had `isError: true`: `error.type=tool_error`. */
  readonly isError?: boolean;
  /** The JSON-RPC error code of a protocol error: `error.type` and `rpc.response.status_code`. */
  readonly code?: number;
  /** The span status description (the JSON-RPC error message, the tool's error text). */
  readonly message?: string;
}

/** The span of one request. `end` is idempotent. */
export interface RequestSpan {
  /** The OpenTelemetry span (non-recording when tracing is off). */
  readonly span: Span;
  /** The context the handler runs in: the parent's, with this span set. */
  readonly context: Context;
  /** The span's ids for log lines; undefined when tracing is off. */
  readonly logFields: TraceLogFields | undefined;
  /** Attributes known only once the request has run (the negotiated version of `initialize`). */
  setAttribute(key: string, value: string | number | boolean): void;
  end(outcome: SpanOutcome): void;
}

export interface Telemetry {
  /** `false` when there is no provider to report to: nothing is recorded. */
  readonly enabled: boolean;
  /** Call at request entry, before dispatching; end the span with the outcome. */
  startRequestSpan(info: RequestSpanInfo): RequestSpan;
  /** A request to a plugin's HTTP route: a SERVER span `<METHOD> <route>`, the handler run in its context. */
  startRouteSpan(info: RouteSpanInfo): RouteSpan;
  /** A request refused at the HTTP edge: a span in the caller's trace and a count. */
  recordRefusal(info: RefusalInfo): TraceLogFields | undefined;
  /** Counts a refusal that already has its span (a tool's scope or rate limit, in the dispatcher). */
  countRefusal(status: number, reason: string): void;
  /** A 2025-wire session began (`initialize` answered). */
  sessionStarted(info: SessionInfo): void;
  /** A 2025-wire session ended (DELETE, expiry, connection closed): `mcp.server.session.duration`. */
  sessionEnded(id: string): void;
  /**
   * Reports `counts` as gauges (`mcp.server.active_requests`, `mcp.server.active_sessions`,
   * `mcp.server.open_streams`), read when a reader collects; a later call replaces the source.
   */
  watch(counts: LiveCounts): void;
  /** Where `/metrics` answers (MCP_METRICS_PORT), once listening; else undefined. */
  readonly metricsUrl: string | undefined;
  /** Exports what is buffered, within `timeoutMs` (a second signal during the drain). */
  flush(timeoutMs: number): Promise<void>;
  /** Flushes spans and metrics within `timeoutMs`, then stops what is ours. Idempotent. */
  shutdown(timeoutMs?: number): Promise<void>;
}

export interface TelemetryOptions {
  readonly config: TracingConfig;
  /** Told when exports start failing, once per failing streak. */
  readonly onExportError?: ExportErrorHandler;
  /** Serve the metrics at `/metrics` there (MCP_METRICS_PORT), with our own pipeline only. */
  readonly prometheus?: PrometheusTarget | undefined;
}

/** What the live gauges read at each collection (never on a request's path). */
export interface LiveCounts {
  /** MCP requests and plugin route handlers running now. */
  inflight(): number;
  /** 2025-wire sessions this replica holds. */
  sessions(): number;
  /** Event streams (SSE) open on this replica; absent without an HTTP transport. */
  streams?: (() => number) | undefined;
}

/** The request span of disabled telemetry: one shared object. */
export const NOOP_REQUEST_SPAN: RequestSpan = Object.freeze({
  span: NOOP_SPAN,
  context: ROOT_CONTEXT,
  logFields: undefined,
  setAttribute(): void {},
  end(): void {},
});

const RESOLVED = Promise.resolve();

/** Telemetry that records nothing; every call returns at once and allocates nothing. */
export const NOOP_TELEMETRY: Telemetry = Object.freeze({
  enabled: false,
  startRequestSpan: (): RequestSpan => NOOP_REQUEST_SPAN,
  startRouteSpan: (): RouteSpan => NOOP_ROUTE_SPAN,
  recordRefusal: () => undefined,
  countRefusal(): void {},
  sessionStarted(): void {},
  sessionEnded(): void {},
  watch(): void {},
  metricsUrl: undefined,
  flush: (): Promise<void> => RESOLVED,
  shutdown: (): Promise<void> => RESOLVED,
});

/**
 * True when the application registered a TracerProvider (the global one delegates). Duck-typed:
 * the registered proxy may come from another copy of `@opentelemetry/api`.
 */
function applicationTracerProvider(): boolean {
  const provider = trace.getTracerProvider() as { getDelegateTracer?: (name: string) => unknown };
  return (
    typeof provider.getDelegateTracer !== 'function' ||
    provider.getDelegateTracer('mcp-toolkit') !== undefined
  );
}

/** What `createTelemetry` decided, for the start-up log line. */
export type TelemetryMode = 'application' | 'own' | 'off';

/** Which pipeline a configuration gets: the application's, our own, or none. */
export function telemetryMode(config: TracingConfig, prometheus?: PrometheusTarget): TelemetryMode {
  if (applicationTracerProvider()) return 'application';
  if (config.sdkDisabled) return 'off';
  return config.traces !== undefined || config.metrics !== undefined || prometheus !== undefined
    ? 'own'
    : 'off';
}

/**
 * Creates the server's telemetry (see the file comment for which pipeline). Async because
 * the SDK is imported only when it is started.
 *
 * @example
 * const telemetry = await createTelemetry({ config: parseTracingConfig(env, settings, PACKAGE_VERSION) });
 * const span = telemetry.startRequestSpan({ method: 'tools/call', targetName: 'add', targetKnown: true, transport: 'stdio' });
 * span.end({});
 * await telemetry.shutdown(2000);
 */
export async function createTelemetry(options: TelemetryOptions): Promise<Telemetry> {
  const mode = telemetryMode(options.config, options.prometheus);
  if (mode === 'off') return NOOP_TELEMETRY;
  const prometheus = mode === 'own' ? options.prometheus : undefined;
  const [{ RequestTelemetry }, { extractKeysOf }, { DurationAggregator }, pipeline, exposition] =
    await Promise.all([
      import('./request-telemetry.ts'),
      import('./span-parent.ts'),
      import('./duration-aggregator.ts'),
      mode === 'own' ? import('./sdk-pipeline.ts') : undefined,
      prometheus === undefined ? undefined : import('./prometheus.ts'),
    ]);
  // Our own readers collect the request duration from the server's own aggregation (no
  // attribute hashing per request); an application's MeterProvider gets it through the SDK's
  // histogram, since its readers are not ours to extend.
  const durations = pipeline === undefined ? undefined : new DurationAggregator();
  const ownMetrics =
    durations === undefined
      ? undefined
      : { durations, scope: { name: SCOPE_NAME, version: options.config.serviceVersion } };
  const endpoint =
    prometheus === undefined ? undefined : exposition?.prometheusEndpoint(prometheus, ownMetrics);
  const sdk = pipeline?.startOwnSdk(
    options.config,
    options.onExportError,
    ownMetrics,
    endpoint === undefined ? [] : [endpoint.reader],
  );
  let metricsUrl: string | undefined;
  try {
    metricsUrl = await endpoint?.listen();
  } catch (err) {
    await sdk?.shutdown(1000);
    throw err;
  }
  // Stopping our pipeline closes the /metrics port too.
  const own =
    sdk === undefined || endpoint === undefined
      ? sdk
      : {
          flush: (ms: number) => sdk.flush(ms),
          shutdown: (ms: number) => Promise.all([sdk.shutdown(ms), endpoint.close()]).then(() => {}),
        };
  // Our own propagators are known, so are the keys they read; an application's are not. Our
  // own samplers (samplerOf) are the SDK's ratio, always-on and always-off ones, which read no
  // attributes; an application's sampler may.
  const extractKeys = own === undefined ? undefined : extractKeysOf(options.config.propagators);
  return new RequestTelemetry(options.config.serviceVersion, own, {
    extractKeys,
    samplerSeesAttributes: own === undefined,
    metricAttributes: options.config.metricAttributes,
    durations,
    metricsUrl,
  });
}
