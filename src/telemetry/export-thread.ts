/**
 * OTLP exports sent from a worker thread. The exporters stay the OpenTelemetry library's: on
 * the main thread its export delegate (concurrency limit, flush, shutdown) and serialisers
 * (protobuf or JSON), and on the export thread (export-thread-worker.ts) its Node HTTP
 * delegate (agent, compression, headers, timeout, retries). Only the bytes cross between them,
 * through the delegate's `IExporterTransport` extension point.
 *
 * Why a thread: an HTTP client request on the thread that serves requests runs Node's HTTP
 * code (`OutgoingMessage`, `IncomingMessage`, stream writes) on objects of other shapes than
 * the server's; V8 then throws away the server's optimised code and rebuilds it for both. A
 * metric export every minute cost a sampled-out server several percent of its throughput that
 * way (docs/performance.md); on its own thread the export runs in another isolate and leaves
 * the server's code alone.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { OTLPMetricExporterBase } from '@opentelemetry/exporter-metrics-otlp-http';
import {
  createOtlpNetworkExportDelegate,
  type ExportResponse,
  getSharedConfigurationDefaults,
  type IExporterTransport,
  mergeOtlpSharedConfigurationWithDefaults,
  OTLPExporterBase,
} from '@opentelemetry/otlp-exporter-base';
import { createOtlpHttpExporterMetrics } from '@opentelemetry/otlp-exporter-base/node-http';
import {
  type IExporterMetricsHelper,
  type ISerializer,
  JsonMetricsSerializer,
  JsonTraceSerializer,
  MetricsExporterMetricsHelper,
  ProtobufMetricsSerializer,
  ProtobufTraceSerializer,
  TraceExporterMetricsHelper,
} from '@opentelemetry/otlp-transformer';
import type { AggregationTemporality, PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { OtlpTarget } from './otel-settings.ts';

/** One signal's endpoint, as the export thread builds its HTTP delegate from it. */
export interface ExportTarget {
  url: string;
  headers: Record<string, string>;
  timeoutMillis: number;
  compression: string;
  /** The exporter library's name for the signal (its OTEL_EXPORTER_OTLP_<signal>_* variables). */
  signal: 'TRACES' | 'METRICS';
  path: 'v1/traces' | 'v1/metrics';
  contentType: string;
}

export type Signal = 'traces' | 'metrics';
export interface ExportRequest {
  id: number;
  signal: Signal;
  data: Uint8Array;
}
export type ToThread = ExportRequest;
export type FromThread =
  | { id: number; ok: true }
  | { id: number; ok: false; error: { name: string; message: string; code?: number } };

/** The worker's file beside this one: `.ts` in the clone, `.js` in the built package. */
const WORKER_FILE = new URL(
  `./export-thread-worker${extname(fileURLToPath(import.meta.url))}`,
  import.meta.url,
);

/** How long past its own timeout an export may stay unanswered before it counts as failed. */
const ANSWER_GRACE_MS = 2000;

interface Pending {
  resolve(response: ExportResponse): void;
  timer: NodeJS.Timeout;
}

function failure(message: string): ExportResponse {
  return { status: 'failure', error: new Error(message) };
}

/**
 * The thread, started at the first export (again after one that died: its exports in flight
 * fail, the next one starts a new thread) and ended when every transport is shut down. It
 * keeps the process alive only while an export is in flight.
 */
export class ExportThread {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private open = 0;
  private closed = false;
  private readonly targets: Partial<Record<Signal, ExportTarget>>;

  constructor(targets: Partial<Record<Signal, ExportTarget>>) {
    this.targets = targets;
  }

  /** The transport a delegate of `signal` sends through. */
  transport(signal: Signal): IExporterTransport {
    this.open++;
    let shut = false;
    return {
      send: (data, timeoutMillis) => this.send(signal, data, timeoutMillis),
      shutdown: () => {
        if (shut) return;
        shut = true;
        if (--this.open === 0) this.close();
      },
    };
  }

  private start(): Worker {
    const worker = new Worker(WORKER_FILE, { workerData: { targets: this.targets } });
    worker.unref();
    worker.on('message', (message: FromThread) => {
      const pending = this.pending.get(message.id);
      if (pending === undefined) return;
      this.settle(message.id, pending);
      if (message.ok) pending.resolve({ status: 'success' });
      else {
        const error = Object.assign(new Error(message.error.message), {
          name: message.error.name,
          ...(message.error.code === undefined ? {} : { code: message.error.code }),
        });
        pending.resolve({ status: 'failure', error });
      }
    });
    // 'exit' follows 'error': the exports in flight fail once, at exit.
    worker.on('error', () => {});
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, pending] of this.pending) {
        this.settle(id, pending);
        pending.resolve(failure(`the OTLP export thread exited (code ${code}) before the export was sent`));
      }
    });
    return worker;
  }

  private send(signal: Signal, data: Uint8Array, timeoutMillis: number): Promise<ExportResponse> {
    if (this.closed) return Promise.resolve(failure('the OTLP export thread is shut down'));
    this.worker ??= this.start();
    const worker = this.worker;
    const id = this.nextId++;
    return new Promise<ExportResponse>((resolve) => {
      const timer = setTimeout(() => {
        this.settle(id, this.pending.get(id));
        resolve(
          failure(`the OTLP export thread did not answer within ${timeoutMillis + ANSWER_GRACE_MS} ms`),
        );
      }, timeoutMillis + ANSWER_GRACE_MS);
      timer.unref();
      // Alive while an export is in flight, as an HTTP request would keep it.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, timer });
      // Copied, not transferred: a serialiser's bytes may share a pooled buffer.
      worker.postMessage({ id, signal, data } satisfies ToThread);
    });
  }

  private settle(id: number, pending: Pending | undefined): void {
    if (pending === undefined) return;
    clearTimeout(pending.timer);
    this.pending.delete(id);
    if (this.pending.size > 0) return;
    this.worker?.unref();
    if (this.closed) void this.worker?.terminate();
  }

  private close(): void {
    this.closed = true;
    if (this.pending.size === 0) void this.worker?.terminate();
  }
}

/** The export thread's view of `target` for `signal`. */
export function exportTarget(target: OtlpTarget, signal: Signal): ExportTarget {
  return {
    url: target.url,
    headers: { ...target.headers },
    timeoutMillis: target.timeoutMs,
    compression: target.compression,
    signal: signal === 'traces' ? 'TRACES' : 'METRICS',
    path: signal === 'traces' ? 'v1/traces' : 'v1/metrics',
    contentType: target.protocol === 'http/json' ? 'application/json' : 'application/x-protobuf',
  };
}

function sharedOptions(target: OtlpTarget) {
  return mergeOtlpSharedConfigurationWithDefaults(
    { timeoutMillis: target.timeoutMs, compression: target.compression as 'gzip' | 'none' },
    {},
    getSharedConfigurationDefaults(),
  );
}

/** The library's export delegate for `signal`: its serialiser here, its HTTP sender on `thread`. */
function delegateOf<Internal>(
  target: OtlpTarget,
  thread: ExportThread,
  signal: Signal,
  serializer: ISerializer<Internal, unknown>,
  componentType: string,
  helper: IExporterMetricsHelper<Internal>,
) {
  return createOtlpNetworkExportDelegate(
    sharedOptions(target),
    serializer,
    createOtlpHttpExporterMetrics(componentType, helper, target.url, undefined),
    thread.transport(signal),
  );
}

/** The span exporter of `target`: serialised here, sent by `thread`. */
export function threadSpanExporter(target: OtlpTarget, thread: ExportThread): SpanExporter {
  const json = target.protocol === 'http/json';
  return new OTLPExporterBase(
    delegateOf(
      target,
      thread,
      'traces',
      json ? JsonTraceSerializer : ProtobufTraceSerializer,
      'otlp_http_span_exporter',
      TraceExporterMetricsHelper,
    ),
  );
}

/** The metric exporter of `target`, with the temporality chosen: serialised here, sent by `thread`. */
export function threadMetricExporter(
  target: OtlpTarget,
  thread: ExportThread,
  temporalityPreference: AggregationTemporality | undefined,
): PushMetricExporter {
  const json = target.protocol === 'http/json';
  return new OTLPMetricExporterBase(
    delegateOf(
      target,
      thread,
      'metrics',
      json ? JsonMetricsSerializer : ProtobufMetricsSerializer,
      'otlp_http_metric_exporter',
      MetricsExporterMetricsHelper,
    ),
    temporalityPreference === undefined
      ? undefined
      : { temporalityPreference: temporalityPreference as never },
  );
}
