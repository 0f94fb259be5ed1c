/**
 * The enabled Telemetry: request spans (request-span.ts) from the global TracerProvider and
 * the MCP metrics, from our own aggregation of the request duration (our pipeline) or the
 * global MeterProvider, spans for plugin routes and refusals, session durations. Loaded by
 * `createTelemetry` only when there is a provider to report to (tracing.ts).
 */
import {
  type Attributes,
  type Meter,
  metrics,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
  ValueType,
} from '@opentelemetry/api';
import { logFieldsOf, type TraceLogFields } from '../base/trace-context.ts';
import type {
  LiveCounts,
  RefusalInfo,
  RequestSpan,
  RequestSpanInfo,
  SessionInfo,
  Telemetry,
} from './contract.ts';
import type { DurationAggregator } from './duration-aggregator.ts';
import type { MetricAttributeSet } from './otel-settings.ts';
import { type Instruments, metricAttributes, networkAttributes, SeriesCache } from './request-series.ts';
import { OtelRequestSpan, type SpanShared } from './request-span.ts';
import { type RouteSpan, type RouteSpanInfo, startRouteSpan } from './route-span.ts';
import type { OwnedSdk } from './sdk-pipeline.ts';
import {
  Attr,
  boundedMethod,
  boundTarget,
  DURATION_BUCKETS_S,
  DURATION_DESCRIPTION,
  Metric,
  SCOPE_NAME,
} from './semconv.ts';
import { parentOf } from './span-parent.ts';

export interface RequestTelemetryOptions {
  /**
   * The carrier keys our own propagators read (span-parent.ts), so that a request carrying
   * none is not handed to them; undefined with an application's propagator.
   */
  readonly extractKeys?: readonly string[] | undefined;
  /**
   * Whether `startSpan` is given the attributes that name the request's kind, for a sampler to
   * key on (an application's sampler may; default true); false with our own samplers, the
   * SDK's ratio, always-on and always-off ones, which read none: a kept span gets them right
   * after the decision, a span sampled out never has them checked or copied.
   */
  readonly samplerSeesAttributes?: boolean;
  /** The per-request metrics' attributes (MCP_OTEL_METRIC_ATTRIBUTES; default `required`). */
  readonly metricAttributes?: MetricAttributeSet;
  /**
   * The duration's own aggregation, which our pipeline's readers collect through a
   * `MetricProducer` (duration-producer.ts); without it (an application's MeterProvider) the
   * duration is recorded on the SDK's histogram.
   */
  readonly durations?: DurationAggregator | undefined;
  /** Where `/metrics` answers, when the Prometheus exporter listens (prometheus.ts). */
  readonly metricsUrl?: string | undefined;
}

/** Sessions tracked for their duration at most; past it the oldest is forgotten (expired unseen). */
const MAX_TRACKED_SESSIONS = 100_000;

export class RequestTelemetry implements Telemetry {
  readonly enabled = true;
  readonly metricsUrl: string | undefined;
  readonly #meter: Meter;
  #counts: LiveCounts | undefined;
  readonly #tracer: Tracer;
  readonly #instruments: Instruments;
  readonly #own: OwnedSdk | undefined;
  readonly #sessions = new Map<string, { started: number; attributes: Attributes }>();
  readonly #extractKeys: readonly string[] | undefined;
  readonly #shared: SpanShared;

  /**
   * `own`: our SDK, when we started one (else the application's provider is used, and flushed
   * only). See `RequestTelemetryOptions` for the rest.
   */
  constructor(version: string, own: OwnedSdk | undefined, options: RequestTelemetryOptions = {}) {
    this.#tracer = trace.getTracer(SCOPE_NAME, version);
    this.#own = own;
    this.#extractKeys = options.extractKeys;
    const meter = metrics.getMeter(SCOPE_NAME, version);
    this.#meter = meter;
    this.metricsUrl = options.metricsUrl;
    const advice = { explicitBucketBoundaries: [...DURATION_BUCKETS_S] };
    this.#instruments = {
      duration: meter.createHistogram(Metric.OperationDuration, {
        unit: 's',
        description: DURATION_DESCRIPTION,
        advice: { explicitBucketBoundaries: [...DURATION_BUCKETS_S] },
      }),
      sessions: meter.createHistogram(Metric.SessionDuration, {
        unit: 's',
        description: 'Duration of MCP sessions (2025 wire) as observed on the server.',
        advice,
      }),
      toolErrors: meter.createCounter(Metric.ToolErrors, {
        unit: '{result}',
        description: 'Tool results with isError: true.',
      }),
      refusals: meter.createCounter(Metric.Refusals, {
        unit: '{request}',
        description:
          'Requests refused at the HTTP edge (authentication, scope, rate limit, size, type, Host, Origin).',
      }),
    };
    this.#shared = {
      tracer: this.#tracer,
      instruments: this.#instruments,
      cache: new SeriesCache(options.metricAttributes === 'recommended'),
      durations: options.durations,
      extractKeys: options.extractKeys,
      samplerSeesAttributes: options.samplerSeesAttributes ?? true,
    };
  }

  startRequestSpan(info: RequestSpanInfo): RequestSpan {
    return new OtelRequestSpan(this.#shared, info);
  }

  startRouteSpan(info: RouteSpanInfo): RouteSpan {
    return startRouteSpan(this.#tracer, info);
  }

  countRefusal(status: number, reason: string): void {
    this.#instruments.refusals.add(1, { [Attr.HttpResponseStatusCode]: status, [Attr.ErrorType]: reason });
  }

  recordRefusal(info: RefusalInfo): TraceLogFields | undefined {
    this.countRefusal(info.status, info.reason);
    const attributes: Attributes = {
      [Attr.HttpRequestMethod]: info.httpMethod,
      [Attr.HttpResponseStatusCode]: info.status,
      [Attr.ErrorType]: info.reason,
    };
    if (info.method !== undefined) attributes[Attr.McpMethodName] = boundTarget(info.method) ?? '';
    if (info.clientId !== undefined) attributes[Attr.McpClientId] = info.clientId;
    networkAttributes(attributes, { transport: 'http', ...info });
    const { parent } = parentOf(undefined, info.headers, this.#extractKeys);
    const name = info.method === undefined ? `HTTP ${info.httpMethod}` : boundedMethod(info.method);
    const span = this.#tracer.startSpan(
      name,
      info.startTime === undefined
        ? { kind: SpanKind.SERVER, attributes }
        : { kind: SpanKind.SERVER, attributes, startTime: info.startTime },
      parent,
    );
    span.setStatus({ code: SpanStatusCode.ERROR, message: info.message });
    span.end();
    return logFieldsOf(span);
  }

  watch(counts: LiveCounts): void {
    const first = this.#counts === undefined;
    this.#counts = counts;
    if (!first) return;
    // Observable gauges: read once per collection (a scrape, an export), so the request path
    // only moves the counters it already keeps.
    const gauge = (name: string, unit: string, description: string) =>
      this.#meter.createObservableGauge(name, { unit, description, valueType: ValueType.INT });
    const active = gauge(
      Metric.ActiveRequests,
      '{request}',
      'MCP requests and plugin route handlers running on this replica.',
    );
    const sessions = gauge(
      Metric.ActiveSessions,
      '{session}',
      '2025-wire MCP sessions held by this replica.',
    );
    const streams = gauge(
      Metric.OpenStreams,
      '{stream}',
      'Event streams (SSE: GET streams, POST replies, subscriptions/listen) open on this replica.',
    );
    this.#meter.addBatchObservableCallback(
      (result) => {
        const counts = this.#counts;
        if (counts === undefined) return;
        result.observe(active, counts.inflight());
        result.observe(sessions, counts.sessions());
        if (counts.streams !== undefined) result.observe(streams, counts.streams());
      },
      [active, sessions, streams],
    );
  }

  sessionStarted(info: SessionInfo): void {
    if (this.#sessions.size >= MAX_TRACKED_SESSIONS) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest !== undefined) this.#sessions.delete(oldest);
    }
    const attributes: Attributes = {};
    if (info.protocolVersion !== '') attributes[Attr.McpProtocolVersion] = info.protocolVersion;
    networkAttributes(attributes, info);
    this.#sessions.set(info.id, { started: performance.now(), attributes: metricAttributes(attributes) });
  }

  sessionEnded(id: string): void {
    const session = this.#sessions.get(id);
    if (session === undefined) return;
    this.#sessions.delete(id);
    this.#instruments.sessions.record((performance.now() - session.started) / 1000, session.attributes);
  }

  flush(timeoutMs: number): Promise<void> {
    if (this.#own !== undefined) return this.#own.flush(timeoutMs);
    return flushApplicationProvider(timeoutMs);
  }

  shutdown(timeoutMs = 10_000): Promise<void> {
    // Sessions still open end with the server.
    for (const id of [...this.#sessions.keys()]) this.sessionEnded(id);
    // The application's pipeline is the application's to stop; ours stops here.
    if (this.#own === undefined) return flushApplicationProvider(timeoutMs);
    return this.#own.shutdown(timeoutMs);
  }
}

/** Asks the application's provider to export what it holds (the process may exit next). */
function flushApplicationProvider(timeoutMs: number): Promise<void> {
  const proxy = trace.getTracerProvider() as { getDelegate?: () => { forceFlush?: () => Promise<void> } };
  const flushing = proxy.getDelegate?.().forceFlush?.();
  if (flushing === undefined) return Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    flushing.then(
      () => {},
      () => {},
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}
