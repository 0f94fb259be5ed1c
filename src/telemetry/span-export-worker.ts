/**
 * Sends encoded span batches to the collector from a worker thread, so the HTTP client's
 * work (and its code, which Node's HTTP server shares) stays off the thread that answers
 * requests. The main thread hands over each batch's bytes (span-exporter.ts); this thread
 * posts them with @opentelemetry/otlp-exporter-base's own HTTP transport (retries, timeouts,
 * concurrency limit, OTEL_EXPORTER_OTLP_* headers) and answers with the outcome.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { EncodedSpans } from './span-export.ts';

/** A message from the main thread. */
export type ToWorker =
  | { readonly kind: 'export'; readonly id: number; readonly bytes: Uint8Array; readonly count: number }
  | { readonly kind: 'shutdown' };

/** A message to the main thread. */
export type FromWorker =
  | {
      readonly kind: 'result';
      readonly id: number;
      readonly code: number;
      readonly error?: string;
      /** The batch's memory, back to the main thread for its next batch (after a success only). */
      readonly memory?: ArrayBuffer;
    }
  | { readonly kind: 'stopped' };

export interface WorkerOptions {
  readonly url: string;
  readonly timeoutMillis: number;
}

/** The OTLP/HTTP protobuf span exporter, for batches already encoded. */
function createEncodedSpanExporter(options: WorkerOptions): OTLPExporterBase<EncodedSpans> {
  return new OTLPExporterBase(
    createOtlpHttpExportDelegate(
      convertLegacyHttpOptions(
        { url: options.url, timeoutMillis: options.timeoutMillis },
        'TRACES',
        'v1/traces',
        { 'Content-Type': 'application/x-protobuf' },
      ),
      {
        serializeRequest: (batch: EncodedSpans) => batch.bytes,
        deserializeResponse: (data: Uint8Array) => ProtobufTraceSerializer.deserializeResponse(data),
      },
      'otlp_http_span_exporter',
      // The exporter's self-metrics count spans, not bytes.
      { name: 'span', countItems: (batch: EncodedSpans) => batch.count },
      undefined,
    ),
  );
}

if (parentPort !== null && (workerData as { spanExportWorker?: boolean } | undefined)?.spanExportWorker) {
  const port = parentPort;
  const exporter = createEncodedSpanExporter((workerData as { options: WorkerOptions }).options);
  port.on('message', (message: ToWorker) => {
    if (message.kind === 'export') {
      exporter.export({ bytes: message.bytes, count: message.count }, (result) => {
        // Sent: the request is done with the bytes. After a failure (a timeout may leave a
        // request being torn down) they are left to the garbage collector.
        const memory =
          result.code === ExportResultCode.SUCCESS ? (message.bytes.buffer as ArrayBuffer) : undefined;
        const reply: FromWorker = {
          kind: 'result',
          id: message.id,
          code: result.code,
          ...(result.error !== undefined ? { error: result.error.message } : {}),
          ...(memory !== undefined ? { memory } : {}),
        };
        port.postMessage(reply, memory !== undefined ? [memory] : []);
      });
    } else {
      // Waits for every export in flight, then says so; the main thread ends the worker.
      void exporter.shutdown().finally(() => port.postMessage({ kind: 'stopped' } satisfies FromWorker));
    }
  });
}
