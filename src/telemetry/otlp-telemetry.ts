/**
 * The enabled Telemetry: request spans of our own (encoded and sent by span-export.ts) and a
 * private MeterProvider, exporting OTLP/HTTP protobuf. Loaded by `createTelemetry` only when
 * an endpoint is set (see tracing.ts).
 */
import { randomFillSync } from 'node:crypto';
import {
  type Attributes,
  type Counter,
  isSpanContextValid,
  ROOT_CONTEXT,
  SamplingDecision,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InstrumentType, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { DurationHistogram, keyPart, type Series } from './duration-histogram.ts';
import { encodeSpanAttributes, type SpanRecord } from './otlp-span-encoder.ts';
import {
  Attr,
  boundTarget,
  DURATION_BUCKETS_S,
  errorTypeOf,
  Metric,
  metricMethod,
  spanName,
} from './semconv.ts';
import { SpanQueue, type SpanSink, WorkerSpanExporter } from './span-export.ts';
import type {
  RequestSpan,
  RequestSpanInfo,
  SpanAttributeValue,
  SpanOutcome,
  Telemetry,
  TelemetryOptions,
} from './tracing.ts';

const SCOPE = 'mcp-toolkit';
const EXPORT_TIMEOUT_MS = 10_000;
// W3C Trace Context §3.2 / §3.3: a traceparent is 55 characters in version 00, and
// vendors may truncate tracestate beyond 512; anything far longer is not worth parsing.
const MAX_TRACEPARENT = 256;
const MAX_TRACESTATE = 1024;

interface TraceCarrier {
  traceparent: string | undefined;
  tracestate: string | undefined;
}

const carrierGetter: TextMapGetter<TraceCarrier> = {
  keys: () => ['traceparent', 'tracestate'],
  get: (carrier, key) =>
    key === 'traceparent' ? carrier.traceparent : key === 'tracestate' ? carrier.tracestate : undefined,
};

const propagator = new W3CTraceContextPropagator();

function boundedString(value: unknown, max: number): string | undefined {
  return typeof value === 'string' && value.length <= max ? value : undefined;
}

/** The remote parent a request's `_meta.traceparent` names, if it is well-formed. */
function parentOf(info: RequestSpanInfo): SpanContext | undefined {
  const traceparent = boundedString(info.traceparent, MAX_TRACEPARENT);
  if (traceparent === undefined) return undefined;
  const carrier = { traceparent, tracestate: boundedString(info.tracestate, MAX_TRACESTATE) };
  const parent = trace.getSpanContext(propagator.extract(ROOT_CONTEXT, carrier, carrierGetter));
  return parent !== undefined && isSpanContextValid(parent) ? parent : undefined;
}

interface Instruments {
  readonly duration: DurationHistogram;
  readonly toolErrors: Counter;
}

// Span and trace ids come from a pool of random bytes (the system's CSPRNG), refilled as a
// new buffer when used up, since a span in flight keeps the one its ids are in. 16 KiB
// serves 680 spans; one fill costs about what 20 calls for 24 bytes would.
const POOL_BYTES = 24 * 680;
const ID_BYTES = 24;
const newPool = () => randomFillSync(Buffer.allocUnsafeSlow(POOL_BYTES));
let idPool = newPool();
let idPoolAt = 0;

function allZero(bytes: Buffer, at: number, length: number): boolean {
  for (let i = at; i < at + length; i++) if (bytes[i] !== 0) return false;
  return true;
}

/** Where 24 fresh random bytes are (a 16-byte trace id, then an 8-byte span id). */
function freshIds(): number {
  if (idPoolAt + ID_BYTES > POOL_BYTES) {
    idPool = newPool();
    idPoolAt = 0;
  }
  const at = idPoolAt;
  idPoolAt += ID_BYTES;
  // An all-zero id is invalid (W3C Trace Context); at 2^-64 and 2^-128 it is still checked.
  if (allZero(idPool, at + 16, 8) || allZero(idPool, at, 16)) return freshIds();
  return at;
}

/**
 * The span of one request. It is its own record: when it ends, its fields are encoded into
 * the open batch and nothing else keeps it, so a span costs one small object for the
 * request's life (the SDK's span keeps hrtime arrays, cleans attributes twice and lives on
 * in its processor's queue until the export).
 */
class OtlpRequestSpan implements RequestSpan, SpanRecord {
  readonly ids: Buffer;
  readonly idsAt: number;
  readonly parentSpanId: string | undefined;
  readonly traceState: string | undefined;
  readonly name: string;
  readonly kind = SpanKind.SERVER;
  readonly startMs: number;
  endMs = 0;
  encodedAttributes: Uint8Array | undefined;
  attributes: Attributes;
  statusCode: number = SpanStatusCode.UNSET;
  readonly traceFlags: number;
  readonly #sink: SpanSink;
  readonly #instruments: Instruments;
  readonly #started: number;
  readonly #route: Route;
  #traceId: string | undefined;
  #ended = false;

  constructor(
    sink: SpanSink,
    sampled: (span: { readonly traceId: string }) => boolean,
    instruments: Instruments,
    info: RequestSpanInfo,
    route: Route,
  ) {
    this.#sink = sink;
    this.#instruments = instruments;
    this.#started = performance.now();
    this.startMs = performance.timeOrigin + this.#started;
    this.#route = route;
    this.name = route.name;
    this.encodedAttributes = route.attributes;
    this.attributes =
      route.attributes === undefined
        ? { ...route.shared, ...requestAttributes(info) }
        : requestAttributes(info);
    const parent = parentOf(info);
    if (parent === undefined) {
      this.ids = idPool;
      this.idsAt = freshIds();
      this.parentSpanId = undefined;
      this.traceState = undefined;
      this.traceFlags = sampled(this) ? TraceFlags.SAMPLED : TraceFlags.NONE;
    } else {
      // The caller's trace id, and a span id of our own.
      const at = freshIds();
      this.ids = Buffer.allocUnsafe(ID_BYTES);
      this.ids.write(parent.traceId, 0, 16, 'hex');
      idPool.copy(this.ids, 16, at + 16, at + ID_BYTES);
      this.idsAt = 0;
      this.#traceId = parent.traceId;
      this.parentSpanId = parent.spanId;
      this.traceState = parent.traceState?.serialize() || undefined;
      this.traceFlags = parent.traceFlags & TraceFlags.SAMPLED;
    }
  }

  get traceId(): string {
    this.#traceId ??= this.ids.toString('hex', this.idsAt, this.idsAt + 16);
    return this.#traceId;
  }

  setAttribute(key: string, value: SpanAttributeValue): void {
    if (this.#ended) return;
    if (this.encodedAttributes !== undefined && Object.hasOwn(this.#route.shared, key)) {
      // A shared attribute changes for this span alone: it leaves the encoded bytes behind.
      this.encodedAttributes = undefined;
      this.attributes = { ...this.#route.shared, ...this.attributes };
    }
    (this.attributes as Record<string, SpanAttributeValue>)[key] = value;
  }

  end(outcome: SpanOutcome): void {
    if (this.#ended) return;
    this.#ended = true;
    const now = performance.now();
    const errorType = errorTypeOf(outcome);
    if ((this.traceFlags & TraceFlags.SAMPLED) !== 0) {
      const attributes = this.attributes as Record<string, SpanAttributeValue>;
      if (errorType !== undefined) {
        attributes[Attr.ErrorType] = errorType;
        this.statusCode = SpanStatusCode.ERROR;
      }
      if (outcome.code !== undefined) attributes[Attr.RpcResponseStatusCode] = String(outcome.code);
      this.endMs = performance.timeOrigin + now;
      this.#sink.push(this);
    }

    const seconds = (now - this.#started) / 1000;
    const route = this.#route;
    const { duration } = this.#instruments;
    if (errorType === undefined && outcome.code === undefined) {
      duration.recordIn(route.ok, seconds);
    } else {
      duration.record(seconds, {
        method: metricMethod(route.method, outcome.code),
        transport: route.transport,
        tool: outcome.code === undefined ? route.tool : undefined,
        protocolVersion: route.protocolVersion,
        errorType,
      });
    }
    if (outcome.isError === true) {
      const toolAttributes: Attributes = { [Attr.McpMethodName]: route.method };
      if (route.tool !== undefined) toolAttributes[Attr.GenAiToolName] = route.tool;
      this.#instruments.toolErrors.add(1, toolAttributes);
    }
  }
}

// Conventions: `pipe` for stdio, `tcp` for HTTP.
function transportOf(info: RequestSpanInfo): 'pipe' | 'tcp' {
  return info.transport === 'stdio' ? 'pipe' : 'tcp';
}

/**
 * The attributes a span shares with every request of the same method, target, version and
 * client (encoded once per route, see `Routes`).
 */
function routeAttributes(info: RequestSpanInfo, target: string | undefined): Attributes {
  const attributes: Attributes = {
    [Attr.McpMethodName]: info.method,
    [Attr.NetworkTransport]: transportOf(info),
  };
  if (info.transport === 'http') attributes[Attr.NetworkProtocolName] = 'http';
  if (target !== undefined) {
    if (info.method === 'tools/call') {
      attributes[Attr.GenAiToolName] = target;
      attributes[Attr.GenAiOperationName] = 'execute_tool';
    } else if (info.method === 'prompts/get') {
      attributes[Attr.GenAiPromptName] = target;
    } else if (info.method.startsWith('resources/')) {
      attributes[Attr.McpResourceUri] = target;
    }
  }
  if (info.protocolVersion !== undefined) attributes[Attr.McpProtocolVersion] = info.protocolVersion;
  if (info.clientId !== undefined) attributes[Attr.McpClientId] = info.clientId;
  return attributes;
}

/** The attributes of this request alone. */
function requestAttributes(info: RequestSpanInfo): Attributes {
  const attributes: Attributes = {};
  if (info.sessionId !== undefined) attributes[Attr.McpSessionId] = info.sessionId;
  if (info.requestId !== undefined) attributes[Attr.JsonRpcRequestId] = String(info.requestId);
  return attributes;
}

/** What every request of one route shares: its span name and attributes, its histogram series. */
interface Route {
  readonly name: string;
  /** `shared`, encoded once; undefined when the route table is full (the route is not kept). */
  readonly attributes: Uint8Array | undefined;
  readonly shared: Attributes;
  readonly method: string;
  readonly target: string | undefined;
  readonly tool: string | undefined;
  readonly clientId: string | undefined;
  readonly transport: string;
  readonly protocolVersion: string | undefined;
  /** The duration series of its successful requests (no error, not an isError result). */
  readonly ok: Series;
}

/** Routes kept at most: method, target, version and client come from callers. */
const MAX_ROUTES = 1024;

/**
 * Routes by method, target, protocol version, client and transport, made on first sight: a
 * request then costs one Map lookup for its span name, its shared attributes (already
 * encoded) and its histogram series. Past MAX_ROUTES, new routes are built for each request
 * and not kept.
 */
class Routes {
  readonly #routes = new Map<string, Route>();
  readonly #duration: DurationHistogram;
  #last: Route | undefined;

  constructor(duration: DurationHistogram) {
    this.#duration = duration;
  }

  of(info: RequestSpanInfo, target: string | undefined): Route {
    const transport = transportOf(info);
    // Requests in a row mostly take the same route: compare with the last before building a key.
    const last = this.#last;
    if (
      last !== undefined &&
      last.method === info.method &&
      last.target === target &&
      last.protocolVersion === info.protocolVersion &&
      last.clientId === info.clientId &&
      last.transport === transport
    ) {
      return last;
    }
    const key = `${keyPart(info.method)}${keyPart(target)}${keyPart(info.protocolVersion)}${keyPart(info.clientId)}${transport}`;
    const known = this.#routes.get(key);
    if (known !== undefined) {
      this.#last = known;
      return known;
    }
    const keep = this.#routes.size < MAX_ROUTES;
    const tool = info.method === 'tools/call' ? target : undefined;
    const attributes = routeAttributes(info, target);
    const route: Route = {
      name: spanName(info.method, target),
      attributes: keep ? encodeSpanAttributes(attributes) : undefined,
      shared: attributes,
      method: info.method,
      target,
      tool,
      clientId: info.clientId,
      transport,
      protocolVersion: info.protocolVersion,
      ok: this.#duration.series({
        method: metricMethod(info.method, undefined),
        transport,
        tool,
        protocolVersion: info.protocolVersion,
        errorType: undefined,
      }),
    };
    if (keep) {
      this.#routes.set(key, route);
      this.#last = route;
    }
    return route;
  }
}

/**
 * Reports export failures through `onExportError`, once per failing streak: a collector
 * outage is worth one warning, not one per batch.
 */
function reportFailures(
  exporter: { export(items: never, done: (result: { code: number; error?: Error }) => void): void },
  signal: 'traces' | 'metrics',
  onExportError: TelemetryOptions['onExportError'],
): void {
  if (onExportError === undefined) return;
  const original = exporter.export.bind(exporter);
  let failing = false;
  exporter.export = (items, done) => {
    original(items, (result) => {
      if (result.code === ExportResultCode.SUCCESS) {
        failing = false;
      } else if (!failing) {
        failing = true;
        onExportError(signal, result.error);
      }
      done(result);
    });
  };
}

/** Builds the enabled Telemetry; `options.endpoint` is a checked base URL without a trailing slash. */
export function createOtlpTelemetry(options: TelemetryOptions & { endpoint: string }): Telemetry {
  const resource = resourceFromAttributes({
    'service.name': options.serviceName,
    'service.version': options.serviceVersion,
  });

  const spanExporter = new WorkerSpanExporter(`${options.endpoint}/v1/traces`, EXPORT_TIMEOUT_MS);
  reportFailures(spanExporter, 'traces', options.onExportError);
  const spans = new SpanQueue(
    resource.attributes,
    { name: SCOPE, version: options.serviceVersion },
    spanExporter,
    options.spanDelayMs ?? 5000,
  );
  // Parent-based (a caller's traceparent decides), roots always on unless a ratio below 1
  // is asked for: the OpenTelemetry default sampler and TraceIdRatioBased, as the SDK has them.
  const ratio = options.sampleRatio ?? 1;
  const ratioSampler = ratio < 1 ? new TraceIdRatioBasedSampler(ratio) : undefined;
  const sampled =
    ratioSampler === undefined
      ? () => true
      : // The trace id is formatted only when a ratio needs it (no closure per span for it).
        (span: { readonly traceId: string }) =>
          ratioSampler.shouldSample(ROOT_CONTEXT, span.traceId).decision ===
          SamplingDecision.RECORD_AND_SAMPLED;

  const metricExporter = new OTLPMetricExporter({
    url: `${options.endpoint}/v1/metrics`,
    timeoutMillis: EXPORT_TIMEOUT_MS,
  });
  reportFailures(metricExporter, 'metrics', options.onExportError);
  // The reader asks the exporter which temporality it wants (cumulative unless
  // OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE says otherwise); the histogram follows.
  const temporality = () => metricExporter.selectAggregationTemporality(InstrumentType.HISTOGRAM);
  const duration = new DurationHistogram({
    name: Metric.OperationDuration,
    description: 'Duration of MCP requests handled by the server.',
    unit: 's',
    boundaries: DURATION_BUCKETS_S,
    scope: { name: SCOPE, version: options.serviceVersion },
    resource,
    temporality,
  });
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({
        exporter: metricExporter,
        exportIntervalMillis: options.exportIntervalMs ?? 60_000,
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
        metricProducers: [duration],
      }),
    ],
  });
  const meter = meterProvider.getMeter(SCOPE, options.serviceVersion);
  const routes = new Routes(duration);
  const instruments: Instruments = {
    duration,
    toolErrors: meter.createCounter(Metric.ToolErrors, {
      unit: '{result}',
      description: 'Tool results with isError: true.',
    }),
  };
  const refusals = meter.createCounter(Metric.Refusals, {
    unit: '{request}',
    description: 'Requests refused at the edge (authentication, scope, rate limit, unavailable).',
  });

  let stopped: Promise<void> | undefined;

  return {
    enabled: true,
    startRequestSpan(info: RequestSpanInfo): RequestSpan {
      return new OtlpRequestSpan(
        spans,
        sampled,
        instruments,
        info,
        routes.of(info, boundTarget(info.target)),
      );
    },
    recordRefusal(status: number, reason: string): void {
      refusals.add(1, { [Attr.HttpResponseStatusCode]: status, [Attr.ErrorType]: reason });
    },
    shutdown(): Promise<void> {
      // Both flush what they hold before stopping (the open span batch is sent and awaited;
      // the metric reader collects and exports once more).
      stopped ??= Promise.allSettled([spans.shutdown(), meterProvider.shutdown()]).then(() => {});
      return stopped;
    },
  };
}
