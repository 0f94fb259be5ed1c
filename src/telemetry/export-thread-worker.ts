/**
 * The export thread's side (export-thread.ts starts it): sends the OTLP requests the main
 * thread serialised, through the exporter library's own Node HTTP delegate (its agent,
 * compression, headers, timeout and retries), so that no HTTP client runs on the thread that
 * serves requests.
 *
 * Messages in: `{ id, signal, data }`, one serialised export. Messages out: `{ id, ok, error? }`
 * when it has ended (sent, or failed after the delegate's retries). The main thread ends the
 * thread once no export is in flight.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { IOtlpExportDelegate } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import type { ExportTarget, FromThread, ToThread } from './export-thread.ts';

// The bytes are the request body already: sent as they come, a response body not read.
const asIs = {
  serializeRequest: (bytes: Uint8Array) => bytes,
  deserializeResponse: () => ({}),
};
// The exporter's own metrics count items; here a request is one.
const oneItem = { name: 'export', countItems: () => 1 };

const targets = (workerData as { targets: Record<string, ExportTarget> }).targets;
const delegates = new Map<string, IOtlpExportDelegate<Uint8Array>>();
for (const [signal, t] of Object.entries(targets)) {
  const options = convertLegacyHttpOptions(
    { url: t.url, headers: t.headers, timeoutMillis: t.timeoutMillis, compression: t.compression as never },
    t.signal,
    t.path,
    { 'Content-Type': t.contentType },
  );
  delegates.set(
    signal,
    createOtlpHttpExportDelegate(
      options,
      asIs as never,
      'mcp_toolkit_export_thread',
      oneItem as never,
      undefined,
    ),
  );
}

const port = parentPort;
if (port === null)
  throw new Error('export-thread-worker.ts runs as a worker thread (export-thread.ts starts it)');

function reply(message: FromThread): void {
  port?.postMessage(message);
}

port.on('message', (message: ToThread) => {
  const delegate = delegates.get(message.signal);
  if (delegate === undefined) {
    reply({
      id: message.id,
      ok: false,
      error: { name: 'Error', message: `no export target for ${message.signal}` },
    });
    return;
  }
  delegate.export(message.data, (result) => {
    const error = result.error as (Error & { code?: unknown }) | undefined;
    reply(
      result.code === 0
        ? { id: message.id, ok: true }
        : {
            id: message.id,
            ok: false,
            error: {
              name: error?.name ?? 'Error',
              message: error?.message ?? 'export failed',
              ...(typeof error?.code === 'number' ? { code: error.code } : {}),
            },
          },
    );
  });
});
