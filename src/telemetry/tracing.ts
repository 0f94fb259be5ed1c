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
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { NOOP_SPAN } from '../base/trace-context.ts';
import type { RequestSpan, Telemetry } from './contract.ts';
import type { TracingConfig } from './otel-settings.ts';
import type { PrometheusTarget } from './prometheus.ts';
import { NOOP_ROUTE_SPAN, type RouteSpan } from './route-span.ts';
import type { ExportErrorHandler } from './sdk-pipeline.ts';
import { SCOPE_NAME } from './semconv.ts';

export { NOOP_SPAN, type TraceLogFields } from '../base/trace-context.ts';
export type {
  LiveCounts,
  RefusalInfo,
  RequestSpan,
  RequestSpanInfo,
  SessionInfo,
  SpanOutcome,
  Telemetry,
} from './contract.ts';
export type { PrometheusTarget } from './prometheus.ts';
export type { RouteSpan, RouteSpanInfo } from './route-span.ts';

export interface TelemetryOptions {
  readonly config: TracingConfig;
  /** Told when exports start failing, once per failing streak. */
  readonly onExportError?: ExportErrorHandler;
  /** Serve the metrics at `/metrics` there (MCP_METRICS_PORT), with our own pipeline only. */
  readonly prometheus?: PrometheusTarget | undefined;
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
