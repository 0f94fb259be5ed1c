/**
 * Starting our own OpenTelemetry pipeline: the Node SDK (`@opentelemetry/sdk-node`) with OTLP
 * over HTTP (protobuf or JSON) for spans and metrics, configured from the resolved
 * `TracingConfig` (otel-settings.ts) and registered globally, so that the spans plugins and
 * instrumentations create go out through it too. Loaded only when an endpoint is set: the SDK
 * and its exporters take a good part of a second to import, which a stdio server started by
 * a desktop agent should not pay for nothing.
 */

import { createRequire, syncBuiltinESMExports } from 'node:module';
import { metrics, type TextMapPropagator, trace } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { B3InjectEncoding, B3Propagator } from '@opentelemetry/propagator-b3';
import {
  defaultResource,
  detectResources,
  hostDetector,
  osDetector,
  processDetector,
  resourceFromAttributes,
  serviceInstanceIdDetector,
} from '@opentelemetry/resources';
import {
  AggregationTemporality,
  type MetricReader,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import type { DurationAggregator } from './duration-aggregator.ts';
import { durationProducer, type ProducerScope } from './duration-producer.ts';
import { ExportThread, exportTarget, threadMetricExporter, threadSpanExporter } from './export-thread.ts';
import { PooledIdGenerator } from './id-generator.ts';
import type { OtlpTarget, PropagatorName, TracingConfig } from './otel-settings.ts';

/** An exporter's outcome, for the "export failing" warning. */
export type ExportErrorHandler = (signal: 'traces' | 'metrics', error: Error | undefined) => void;

export interface OwnedSdk {
  /** Flushes and stops everything, within `timeoutMs`; then unregisters the globals. Idempotent. */
  shutdown(timeoutMs: number): Promise<void>;
  /** Exports what is buffered now (a second signal during the drain). */
  flush(timeoutMs: number): Promise<void>;
}

/**
 * The ratio sampler of `ratio`: at 0 and 1 the decision does not depend on the trace id, and
 * the SDK's always-off and always-on samplers make it without reading the id (the
 * specification's TraceIdRatioBased keeps no trace at 0 and every trace at 1).
 */
function ratioSampler(ratio: number): Sampler {
  if (ratio <= 0) return new AlwaysOffSampler();
  if (ratio >= 1) return new AlwaysOnSampler();
  return new TraceIdRatioBasedSampler(ratio);
}

/** The sampler OTEL_TRACES_SAMPLER (or MCP_OTEL_SAMPLE_RATIO) names. */
export function samplerOf(config: Pick<TracingConfig, 'sampler' | 'samplerRatio'>): Sampler {
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratioSampler(config.samplerRatio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratioSampler(config.samplerRatio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** The propagator OTEL_PROPAGATORS names (default: W3C trace context and baggage). */
function propagatorOf(names: readonly PropagatorName[]): TextMapPropagator {
  const all = names.map((name): TextMapPropagator => {
    switch (name) {
      case 'baggage':
        return new W3CBaggagePropagator();
      case 'b3':
        return new B3Propagator();
      case 'b3multi':
        return new B3Propagator({ injectEncoding: B3InjectEncoding.MULTI_HEADER });
      default:
        return new W3CTraceContextPropagator();
    }
  });
  return new CompositePropagator({ propagators: all });
}

/** Tells `onError` once per failing streak (a collector outage is one warning, not one per batch). */
function reportFailures<
  T extends { export(items: never, done: (r: { code: number; error?: Error }) => void): void },
>(exporter: T, signal: 'traces' | 'metrics', onError: ExportErrorHandler | undefined): T {
  if (onError === undefined) return exporter;
  const original = exporter.export.bind(exporter);
  let failing = false;
  exporter.export = (items, done) => {
    original(items, (result) => {
      // ExportResultCode.SUCCESS is 0.
      if (result.code === 0) failing = false;
      else if (!failing) {
        failing = true;
        onError(signal, result.error);
      }
      done(result);
    });
  };
  return exporter;
}

/**
 * What our readers collect besides the SDK's instruments: the request duration the server
 * aggregates itself (duration-aggregator.ts), with the scope its SDK instruments would have.
 */
export interface OwnMetrics {
  readonly durations: DurationAggregator;
  readonly scope: ProducerScope;
}

function metricReaderOf(
  target: OtlpTarget,
  thread: ExportThread,
  config: TracingConfig,
  onError: ExportErrorHandler | undefined,
  own: OwnMetrics | undefined,
) {
  const temporalityPreference =
    config.temporality === 'delta'
      ? AggregationTemporality.DELTA
      : config.temporality === 'cumulative'
        ? AggregationTemporality.CUMULATIVE
        : undefined;
  const exporter = threadMetricExporter(target, thread, temporalityPreference);
  // Built before the reader it serves; asks the reader its temporality at each collection.
  let reader: MetricReader | undefined;
  const producers =
    own === undefined
      ? []
      : [
          durationProducer(own.durations, own.scope, (type) =>
            (reader as MetricReader).selectAggregationTemporality(type),
          ),
        ];
  reader = new PeriodicExportingMetricReader({
    exporter: reportFailures(exporter, 'metrics', onError),
    exportIntervalMillis: config.metricIntervalMs,
    exportTimeoutMillis: Math.min(target.timeoutMs, config.metricIntervalMs),
    metricProducers: producers,
  });
  return reader;
}

function within<T>(work: Promise<T>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, ms));
    timer.unref();
  });
  return Promise.race([
    work.then(
      () => {},
      () => {},
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

/**
 * Starts the Node SDK with our exporters (and `moreReaders`, the Prometheus exporter's) and
 * registers it as the global tracer and meter provider, propagator and (AsyncLocalStorage)
 * context manager. The SDK reads nothing of its
 * own from the environment that matters here: every component is passed in.
 *
 * @example
 * const sdk = startOwnSdk(config, (signal, err) => logger.warn({ signal, err }, 'OTLP export failing'), {
 *   durations: new DurationAggregator(),
 *   scope: { name: 'mcp-toolkit', version: '0.1.0' },
 * });
 * await sdk.shutdown(2000);
 */
export function startOwnSdk(
  config: TracingConfig,
  onError?: ExportErrorHandler,
  own?: OwnMetrics,
  moreReaders: readonly MetricReader[] = [],
): OwnedSdk {
  const resource = defaultResource()
    .merge(
      detectResources({ detectors: [serviceInstanceIdDetector, processDetector, hostDetector, osDetector] }),
    )
    .merge(resourceFromAttributes(config.resourceAttributes))
    .merge(
      resourceFromAttributes({
        'service.name': config.serviceName,
        'service.version': config.serviceVersion,
      }),
    );
  // The OTLP requests go out from a thread of their own (export-thread.ts).
  const thread = new ExportThread({
    ...(config.traces === undefined ? {} : { traces: exportTarget(config.traces, 'traces') }),
    ...(config.metrics === undefined ? {} : { metrics: exportTarget(config.metrics, 'metrics') }),
  });
  const processors =
    config.traces === undefined
      ? []
      : [
          new BatchSpanProcessor({
            exporter: reportFailures(threadSpanExporter(config.traces, thread), 'traces', onError),
            scheduledDelayMillis: config.spanDelayMs,
            maxExportBatchSize: Math.min(config.maxExportBatchSize, config.maxQueueSize),
            maxQueueSize: config.maxQueueSize,
            exportTimeoutMillis: config.traces.timeoutMs,
          }),
        ];
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    sampler: samplerOf(config),
    // Ids are made for every span, a sampled-out one too: cut from a pool (id-generator.ts).
    idGenerator: new PooledIdGenerator(),
    textMapPropagator: propagatorOf(config.propagators),
    spanProcessors: processors,
    // The OTLP reader, and the Prometheus exporter's (prometheus.ts): each collects every instrument.
    metricReaders: [
      ...(config.metrics === undefined ? [] : [metricReaderOf(config.metrics, thread, config, onError, own)]),
      ...moreReaders,
    ],
    // Logs stay with pino on stderr; no OpenTelemetry logger provider of ours.
    logRecordProcessors: [],
    // Outgoing calls only: the server makes the SERVER span of each request itself.
    instrumentations: config.instrumentations.map((name) =>
      name === 'http'
        ? new HttpInstrumentation({ disableIncomingRequestInstrumentation: true })
        : new UndiciInstrumentation(),
    ),
  });
  sdk.start();
  if (config.instrumentations.includes('http')) {
    // node:http was loaded before the SDK started: a require after the hook patches its
    // exports, and the sync carries the patch to ESM named imports.
    createRequire(import.meta.url)('node:http');
    syncBuiltinESMExports();
  }
  const tracerProvider = (
    trace.getTracerProvider() as unknown as {
      getDelegate(): Partial<Record<'forceFlush' | 'shutdown', () => Promise<void>>>;
    }
  ).getDelegate();
  const meterProvider = metrics.getMeterProvider() as Partial<
    Record<'forceFlush' | 'shutdown', () => Promise<void>>
  >;
  let stopped: Promise<void> | undefined;
  return {
    flush(timeoutMs) {
      return within(
        Promise.allSettled([tracerProvider.forceFlush?.(), meterProvider.forceFlush?.()]),
        timeoutMs,
      );
    },
    shutdown(timeoutMs) {
      // Each provider on its own (NodeSDK.shutdown stops waiting at the first failure, e.g. a
      // span export the collector refused, while the metrics are still being sent).
      stopped ??= within(
        Promise.allSettled([tracerProvider.shutdown?.(), meterProvider.shutdown?.()]),
        timeoutMs,
      ).then(async () => {
        // Unregistered, so that a server started again in this process starts afresh.
        const api = await import('@opentelemetry/api');
        api.trace.disable();
        api.metrics.disable();
        api.propagation.disable();
        api.context.disable();
        api.logs.disable();
      });
      return stopped;
    },
  };
}
