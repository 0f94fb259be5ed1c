/**
 * The enabled Telemetry: a private TracerProvider and MeterProvider exporting OTLP/HTTP
 * protobuf. Loaded by `createTelemetry` only when an endpoint is set (see tracing.ts).
 */
import {
  type Attributes,
  type Context,
  type Counter,
  type Histogram,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer, TraceExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type ReadableSpan,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { encodeTraceRequest } from './otlp-span-encoder.ts';
import {
  Attr,
  boundTarget,
  DURATION_BUCKETS_S,
  errorTypeOf,
  Metric,
  metricMethod,
  spanName,
} from './semconv.ts';
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

/** The parent context a request's `_meta.traceparent` names, or the root when absent or malformed. */
function parentContext(info: RequestSpanInfo): Context {
  const traceparent = boundedString(info.traceparent, MAX_TRACEPARENT);
  if (traceparent === undefined) return ROOT_CONTEXT;
  const carrier = { traceparent, tracestate: boundedString(info.tracestate, MAX_TRACESTATE) };
  return propagator.extract(ROOT_CONTEXT, carrier, carrierGetter);
}

interface Instruments {
  readonly duration: Histogram;
  readonly toolErrors: Counter;
}

class OtlpRequestSpan implements RequestSpan {
  readonly traceId: string;
  readonly #span: Span;
  readonly #instruments: Instruments;
  readonly #started: number;
  readonly #method: string;
  readonly #tool: string | undefined;
  readonly #transport: string;
  readonly #protocolVersion: string | undefined;
  #ended = false;

  constructor(span: Span, instruments: Instruments, info: RequestSpanInfo, tool: string | undefined) {
    this.#span = span;
    this.#instruments = instruments;
    this.#started = performance.now();
    this.#method = info.method;
    this.#tool = tool;
    this.#transport = transportOf(info);
    this.#protocolVersion = info.protocolVersion;
    this.traceId = span.spanContext().traceId;
  }

  setAttribute(key: string, value: SpanAttributeValue): void {
    this.#span.setAttribute(key, value as string);
  }

  end(outcome: SpanOutcome): void {
    if (this.#ended) return;
    this.#ended = true;
    const seconds = (performance.now() - this.#started) / 1000;
    const errorType = errorTypeOf(outcome);
    if (errorType !== undefined) {
      this.#span.setAttribute(Attr.ErrorType, errorType);
      this.#span.setStatus({ code: SpanStatusCode.ERROR });
    }
    if (outcome.code !== undefined) this.#span.setAttribute(Attr.RpcResponseStatusCode, String(outcome.code));
    this.#span.end();

    const attributes: Attributes = {
      [Attr.McpMethodName]: metricMethod(this.#method, outcome.code),
      [Attr.NetworkTransport]: this.#transport,
    };
    if (this.#tool !== undefined && outcome.code === undefined) attributes[Attr.GenAiToolName] = this.#tool;
    if (this.#protocolVersion !== undefined) attributes[Attr.McpProtocolVersion] = this.#protocolVersion;
    if (errorType !== undefined) attributes[Attr.ErrorType] = errorType;
    this.#instruments.duration.record(seconds, attributes);
    if (outcome.isError === true) {
      const toolAttributes: Attributes = { [Attr.McpMethodName]: this.#method };
      if (this.#tool !== undefined) toolAttributes[Attr.GenAiToolName] = this.#tool;
      this.#instruments.toolErrors.add(1, toolAttributes);
    }
  }
}

// Conventions: `pipe` for stdio, `tcp` for HTTP.
function transportOf(info: RequestSpanInfo): 'pipe' | 'tcp' {
  return info.transport === 'stdio' ? 'pipe' : 'tcp';
}

function spanAttributes(info: RequestSpanInfo, target: string | undefined): Attributes {
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
  if (info.sessionId !== undefined) attributes[Attr.McpSessionId] = info.sessionId;
  if (info.requestId !== undefined) attributes[Attr.JsonRpcRequestId] = String(info.requestId);
  if (info.clientId !== undefined) attributes[Attr.McpClientId] = info.clientId;
  return attributes;
}

/**
 * The OTLP/HTTP protobuf span exporter: the package's own transport (retries, timeouts,
 * concurrency, OTEL_EXPORTER_OTLP_* headers), built as @opentelemetry/exporter-trace-otlp-proto
 * builds it, with our encoder in place of the reference serializer (otlp-span-encoder.ts:
 * the same bytes at less than half the CPU, on every span).
 */
function createSpanExporter(url: string): OTLPExporterBase<ReadableSpan[]> {
  return new OTLPExporterBase(
    createOtlpHttpExportDelegate(
      convertLegacyHttpOptions({ url, timeoutMillis: EXPORT_TIMEOUT_MS }, 'TRACES', 'v1/traces', {
        'Content-Type': 'application/x-protobuf',
      }),
      {
        serializeRequest: encodeTraceRequest,
        deserializeResponse: (data: Uint8Array) => ProtobufTraceSerializer.deserializeResponse(data),
      },
      'otlp_http_span_exporter',
      TraceExporterMetricsHelper,
      undefined,
    ),
  );
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

  const spanExporter = createSpanExporter(`${options.endpoint}/v1/traces`);
  reportFailures(spanExporter, 'traces', options.onExportError);
  const ratio = options.sampleRatio ?? 1;
  const tracerProvider = new TracerProvider({
    resource,
    // The OpenTelemetry default (parent-based, always on) unless a ratio below 1 is asked for.
    sampler: new ParentBasedSampler({
      root: ratio >= 1 ? new AlwaysOnSampler() : new TraceIdRatioBasedSampler(ratio),
    }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: spanExporter,
        scheduledDelayMillis: options.spanDelayMs ?? 5000,
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
      }),
    ],
  });
  const tracer: Tracer = tracerProvider.getTracer(SCOPE, options.serviceVersion);

  const metricExporter = new OTLPMetricExporter({
    url: `${options.endpoint}/v1/metrics`,
    timeoutMillis: EXPORT_TIMEOUT_MS,
  });
  reportFailures(metricExporter, 'metrics', options.onExportError);
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({
        exporter: metricExporter,
        exportIntervalMillis: options.exportIntervalMs ?? 60_000,
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
      }),
    ],
  });
  const meter = meterProvider.getMeter(SCOPE, options.serviceVersion);
  const instruments: Instruments = {
    duration: meter.createHistogram(Metric.OperationDuration, {
      unit: 's',
      description: 'Duration of MCP requests handled by the server.',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    }),
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
      const target = boundTarget(info.target);
      const span = tracer.startSpan(
        spanName(info.method, target),
        { kind: SpanKind.SERVER, attributes: spanAttributes(info, target) },
        parentContext(info),
      );
      const tool = info.method === 'tools/call' ? target : undefined;
      return new OtlpRequestSpan(span, instruments, info, tool);
    },
    recordRefusal(status: number, reason: string): void {
      refusals.add(1, { [Attr.HttpResponseStatusCode]: status, [Attr.ErrorType]: reason });
    },
    shutdown(): Promise<void> {
      // Both providers flush what they hold before stopping (BatchSpanProcessor drains its
      // queue; the metric reader collects and exports once more).
      stopped ??= Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]).then(() => {});
      return stopped;
    },
  };
}
