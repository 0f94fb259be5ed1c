/**
 * The enabled Telemetry: request spans from the global TracerProvider, parented as the MCP
 * semantic conventions say, and the MCP metrics from the global MeterProvider. Loaded by
 * `createTelemetry` only when there is a provider to report to (tracing.ts).
 */
import {
  type Attributes,
  type Context,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { idText } from '../base/json-ids.ts';
import { logFieldsOf, type TraceLogFields } from '../base/trace-context.ts';
import type { RequestRecord } from '../protocol/request-record.ts';
import type { DurationAggregator } from './duration-aggregator.ts';
import type { MetricAttributeSet } from './otel-settings.ts';
import {
  type Instruments,
  metricAttributes,
  networkAttributes,
  type Series,
  SeriesCache,
} from './request-series.ts';
import { type RouteSpan, type RouteSpanInfo, startRouteSpan } from './route-span.ts';
import type { OwnedSdk } from './sdk-pipeline.ts';
import {
  Attr,
  boundedMethod,
  boundTarget,
  DURATION_BUCKETS_S,
  DURATION_DESCRIPTION,
  errorTypeOf,
  Metric,
  SCOPE_NAME,
} from './semconv.ts';
import { type Carrier, parentOf } from './span-parent.ts';
import type { RequestSpan, SpanOutcome, Telemetry } from './tracing.ts';

/**
 * What a request's span reads of the request: its record (src/protocol/request-record.ts), as
 * the dispatcher built it, read as it is. Only the method and the transport are required, so a
 * span can be started for a request described by hand.
 */
export type RequestSpanInfo = Pick<RequestRecord, 'method' | 'transport'> &
  Partial<
    Pick<
      RequestRecord,
      | 'targetName'
      | 'targetKnown'
      | 'requestId'
      | 'sessionId'
      | 'protocolVersion'
      | 'identity'
      | 'meta'
      | 'headers'
      | 'address'
      | 'port'
      | 'httpVersion'
    >
  >;

/** A request the HTTP edge refused (401, 403, 413, 415, 429, 503, a foreign Host or Origin). */
export interface RefusalInfo {
  readonly httpMethod: string;
  readonly status: number;
  /** `error.type`, a fixed string such as `unauthorized` or `host_not_allowed`. */
  readonly reason: string;
  /** The error message sent to the client (the span status description). */
  readonly message: string;
  /** The JSON-RPC method of the body, when it was read. */
  readonly method?: string | undefined;
  readonly headers?: Carrier | undefined;
  readonly address?: string | undefined;
  readonly port?: number | undefined;
  readonly httpVersion?: string | undefined;
  readonly clientId?: string | undefined;
  /** When the request arrived (ms since the epoch); default now. */
  readonly startTime?: number | undefined;
}

/** A 2025-wire session, as `initialize` opened it. */
export interface SessionInfo {
  readonly id: string;
  readonly protocolVersion: string;
  readonly transport: 'stdio' | 'http';
  readonly httpVersion?: string | undefined;
}

/** What every request span of one server shares. */
interface SpanShared {
  readonly tracer: Tracer;
  readonly instruments: Instruments;
  readonly cache: SeriesCache;
  /** Our own aggregation of the duration (our pipeline), else the SDK's histogram is used. */
  readonly durations: DurationAggregator | undefined;
  readonly extractKeys: readonly string[] | undefined;
  readonly samplerSeesAttributes: boolean;
}

class OtelRequestSpan implements RequestSpan {
  readonly span: Span;
  readonly context: Context;
  readonly #shared: SpanShared;
  readonly #info: RequestSpanInfo;
  readonly #started = performance.now();
  #series: Series;
  #protocolVersion: string | undefined;
  #ended = false;
  #logFields: TraceLogFields | undefined | null = null;

  constructor(shared: SpanShared, info: RequestSpanInfo) {
    this.#shared = shared;
    this.#info = info;
    const { cache, tracer, extractKeys, samplerSeesAttributes } = shared;
    const target = boundTarget(info.targetName);
    const protocolVersion =
      info.protocolVersion !== undefined && info.protocolVersion !== '' ? info.protocolVersion : undefined;
    this.#protocolVersion = protocolVersion;
    const series = cache.get({
      method: info.method,
      target,
      known: info.targetKnown === true,
      transport: info.transport,
      httpVersion: info.httpVersion,
      protocolVersion,
    });
    this.#series = series;
    // What a sampler may key on, and nothing built per request for it: the series' frozen
    // set, plus the target when it is the client's own (a tool or prompt that matched
    // nothing, a resource URI).
    let attributes = series.start;
    if (target !== undefined && info.targetKnown !== true) {
      const key =
        info.method === 'tools/call'
          ? Attr.GenAiToolName
          : info.method === 'prompts/get'
            ? Attr.GenAiPromptName
            : info.method.startsWith('resources/')
              ? Attr.McpResourceUri
              : undefined;
      if (key !== undefined) {
        attributes = { ...attributes, [key]: target };
        if (key === Attr.GenAiToolName) attributes[Attr.GenAiOperationName] = 'execute_tool';
      }
    }
    const { parent, links } = parentOf(info.meta, info.headers, extractKeys);
    // A sampler that reads no attributes (our own pipeline's) is not handed any: the SDK
    // checks and copies what `startSpan` gets before it asks the sampler, so a span sampled
    // out would pay for them; a kept span gets them right after.
    const start = samplerSeesAttributes ? attributes : undefined;
    const span = tracer.startSpan(
      series.name,
      links === undefined
        ? { kind: SpanKind.SERVER, attributes: start }
        : { kind: SpanKind.SERVER, attributes: start, links },
      parent,
    );
    if (span.isRecording()) {
      if (start === undefined) span.setAttributes(attributes);
      span.setAttributes(this.#perRequestAttributes());
    }
    this.span = span;
    this.context = trace.setSpan(parent, span);
  }

  /**
   * The attributes of one request: who sent it (session, client id and address), its id, the
   * negotiated version, the transport's protocol and the client's port. Built and set only
   * once the sampler kept the span: a span sampled out (most of them at a low ratio) never
   * has them built, checked or copied (the SDK checks each attribute given to `startSpan`
   * before and after sampling, allocating a `WeakSet` per value).
   */
  #perRequestAttributes(): Attributes {
    const info = this.#info;
    const attributes: Attributes = {};
    if (info.sessionId !== undefined) attributes[Attr.McpSessionId] = info.sessionId;
    const clientId = info.identity?.clientId;
    if (clientId !== undefined) attributes[Attr.McpClientId] = clientId;
    if (info.transport === 'http' && info.address !== undefined)
      attributes[Attr.ClientAddress] = info.address;
    // Conventions: no jsonrpc.request.id for a null id.
    if (info.requestId !== undefined && info.requestId !== null)
      attributes[Attr.JsonRpcRequestId] = idText(info.requestId);
    if (this.#protocolVersion !== undefined) attributes[Attr.McpProtocolVersion] = this.#protocolVersion;
    // Conventions: `pipe` for stdio, `tcp` for HTTP; nothing for a task's round.
    if (info.transport === undefined) return attributes;
    attributes[Attr.NetworkTransport] = info.transport === 'stdio' ? 'pipe' : 'tcp';
    if (info.transport === 'stdio') return attributes;
    attributes[Attr.NetworkProtocolName] = 'http';
    if (info.httpVersion !== undefined) attributes[Attr.NetworkProtocolVersion] = info.httpVersion;
    if (info.port !== undefined) attributes[Attr.ClientPort] = info.port;
    return attributes;
  }

  get logFields(): TraceLogFields | undefined {
    if (this.#logFields === null) this.#logFields = logFieldsOf(this.span);
    return this.#logFields;
  }

  setAttribute(key: string, value: string | number | boolean): void {
    if (this.#ended) return;
    if (key === Attr.McpProtocolVersion && typeof value === 'string') this.#protocolVersion = value;
    this.span.setAttribute(key, value);
  }

  end(outcome: SpanOutcome): void {
    if (this.#ended) return;
    this.#ended = true;
    const seconds = (performance.now() - this.#started) / 1000;
    const errorType = errorTypeOf(outcome);
    const code = outcome.code === undefined ? undefined : String(outcome.code);
    const span = this.span;
    if (span.isRecording()) {
      if (errorType !== undefined) {
        span.setAttribute(Attr.ErrorType, errorType);
        span.setStatus(
          outcome.message === undefined
            ? { code: SpanStatusCode.ERROR }
            : { code: SpanStatusCode.ERROR, message: outcome.message },
        );
      }
      if (code !== undefined) span.setAttribute(Attr.RpcResponseStatusCode, code);
    }
    span.end();

    let series = this.#series;
    if (this.#protocolVersion !== series.protocolVersion) {
      // `initialize`: the version was negotiated while the request ran.
      const info = this.#info;
      series = this.#shared.cache.get({
        method: info.method,
        target: boundTarget(info.targetName),
        known: info.targetKnown === true,
        transport: info.transport,
        httpVersion: info.httpVersion,
        protocolVersion: this.#protocolVersion,
      });
    }
    const duration =
      errorType === undefined && code === undefined ? series.ok : series.failure(errorType, code);
    const { durations, instruments } = this.#shared;
    if (durations !== undefined) durations.record(duration, seconds);
    else instruments.duration.record(seconds, duration.attributes);
    if (outcome.isError === true && outcome.code === undefined && outcome.error === undefined)
      instruments.toolErrors.add(1, series.toolError);
  }
}

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
}

/** Sessions tracked for their duration at most; past it the oldest is forgotten (expired unseen). */
const MAX_TRACKED_SESSIONS = 100_000;

export class RequestTelemetry implements Telemetry {
  readonly enabled = true;
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
