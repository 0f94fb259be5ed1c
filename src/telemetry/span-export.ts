/**
 * Getting finished spans out: each span is encoded into the open OTLP batch as it ends
 * (`SpanQueue`), and full batches are handed to a worker thread (span-export-worker.ts),
 * which posts them to the collector (`WorkerSpanExporter`). Used by otlp-telemetry.ts.
 */
import { Worker } from 'node:worker_threads';
import type { Attributes } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { SpanBatch, type SpanRecord } from './otlp-span-encoder.ts';
import type { FromWorker, ToWorker, WorkerOptions } from './span-export-worker.ts';

/** Where spans go when they end: encoded into the open batch at once, sent when it is full or due. */
export interface SpanSink {
  push(span: SpanRecord): void;
}

/** A finished batch of spans, encoded: what the span exporter sends. */
export interface EncodedSpans {
  readonly bytes: Uint8Array;
  readonly count: number;
}

/** `memory`: the batch's ArrayBuffer, handed back after a successful send for the next batch. */
export type ExportDone = (result: { code: number; error?: Error }, memory?: ArrayBuffer) => void;

/**
 * The span exporter seen from the request thread: each batch goes to a worker thread
 * (span-export-worker.ts), which posts it with the OTLP exporter's HTTP transport. Profiles
 * showed that exporting on the request thread slowed everything else down: Node's HTTP
 * client shares its parser and stream code with the HTTP server, and the client's objects
 * made that code polymorphic for every request. The worker keeps them apart and, on a
 * machine with a core to spare, runs the export in parallel.
 */
export class WorkerSpanExporter {
  readonly #worker: Worker;
  readonly #pending = new Map<number, ExportDone>();
  #nextId = 0;
  #stopped: Promise<void> | undefined;
  #failure: Error | undefined;

  constructor(url: string, timeoutMillis: number) {
    const options: WorkerOptions = { url, timeoutMillis };
    this.#worker = new Worker(new URL('./span-export-worker.ts', import.meta.url), {
      workerData: { spanExportWorker: true, options },
    });
    // The server keeps the process alive; a pending export alone must not.
    this.#worker.unref();
    this.#worker.on('message', (message: FromWorker) => {
      if (message.kind !== 'result') return;
      const done = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      done?.(
        message.error === undefined
          ? { code: message.code }
          : { code: message.code, error: new Error(message.error) },
        message.memory,
      );
    });
    const fail = (error: Error) => {
      this.#failure = error;
      for (const done of this.#pending.values()) done({ code: ExportResultCode.FAILED, error });
      this.#pending.clear();
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', (code) => fail(new Error(`the span export worker stopped (exit code ${code})`)));
  }

  export(batch: EncodedSpans, done: ExportDone): void {
    if (this.#failure !== undefined || this.#stopped !== undefined) {
      done({
        code: ExportResultCode.FAILED,
        error: this.#failure ?? new Error('the span exporter is shut down'),
      });
      return;
    }
    const id = this.#nextId++;
    this.#pending.set(id, done);
    // Transferred, not copied: cloning a Buffer for postMessage cost 1.2 ms per batch here.
    // The worker transfers it back once sent, and the next batch is written into it.
    const message: ToWorker = { kind: 'export', id, bytes: batch.bytes, count: batch.count };
    this.#worker.postMessage(message, [batch.bytes.buffer as ArrayBuffer]);
  }

  /** Waits for every export in flight (the worker's exporter flushes), then ends the worker. */
  shutdown(): Promise<void> {
    this.#stopped ??= new Promise<void>((resolve) => {
      if (this.#failure !== undefined) return resolve();
      const onMessage = (message: FromWorker) => {
        if (message.kind === 'stopped') finish();
      };
      const finish = () => {
        this.#worker.off('message', onMessage);
        this.#worker.off('exit', finish);
        void this.#worker.terminate().then(() => resolve());
      };
      this.#worker.on('message', onMessage);
      this.#worker.once('exit', finish);
      this.#worker.postMessage({ kind: 'shutdown' } satisfies ToWorker);
    });
    return this.#stopped;
  }
}

/** Batch memories kept for reuse: exports in flight at once are few (the exporter's limit). */
const MAX_SPARE = 4;

/**
 * Spans per export. The SDK's BatchSpanProcessor sends 512; we send up to 2,048 (and at most
 * 1.5 MiB, see SpanBatch). Each export costs the worker about a millisecond whatever its size
 * (its HTTP client code runs too rarely to be optimised): at 512 spans that was 2.5 µs of the
 * server core per request under load, at 2,048 it is 0.9. A quiet server is not kept waiting
 * longer: a batch also goes when its delay (5 s) is up.
 */
const MAX_BATCH_SPANS = 2048;

/**
 * Batches ended spans as the SDK's BatchSpanProcessor does (send at MAX_BATCH_SPANS, or after
 * the delay since the first of a batch), but as bytes: each span is encoded when it ends. While
 * the collector is unreachable the exporter refuses batches past its concurrency limit, and
 * those spans are dropped: memory stays bounded whatever the collector does.
 */
export class SpanQueue implements SpanSink {
  #batch: SpanBatch | undefined;
  #timer: NodeJS.Timeout | undefined;
  #sizeHint = 64 * 1024;
  /**
   * Memory of sent batches, back from the worker. Without it every batch was a new 200 KB
   * ArrayBuffer, and the external memory they added up to set off garbage collections on
   * both threads: two thirds of the worker's time went to them.
   */
  readonly #spare: ArrayBuffer[] = [];
  #closed = false;
  readonly #resource: Attributes;
  readonly #scope: { name: string; version: string };
  readonly #exporter: WorkerSpanExporter;
  readonly #delayMs: number;

  constructor(
    resource: Attributes,
    scope: { name: string; version: string },
    exporter: WorkerSpanExporter,
    delayMs: number,
  ) {
    this.#resource = resource;
    this.#scope = scope;
    this.#exporter = exporter;
    this.#delayMs = delayMs;
  }

  push(span: SpanRecord): void {
    if (this.#closed) return;
    this.#batch ??= new SpanBatch(this.#resource, this.#scope, this.#sizeHint, this.#spare.pop());
    this.#batch.add(span);
    if (this.#batch.count >= MAX_BATCH_SPANS || this.#batch.full) {
      this.#send();
    } else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#send(), this.#delayMs);
      this.#timer.unref();
    }
  }

  /** Sends the open batch, if any; resolves when the exporter has answered for it. */
  #send(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#batch;
    this.#batch = undefined;
    if (batch === undefined) return Promise.resolve();
    this.#sizeHint = Math.max(1024, Math.ceil(batch.bytes * 1.25));
    const encoded = { bytes: batch.finish(), count: batch.count };
    return new Promise((resolve) =>
      this.#exporter.export(encoded, (_result, memory) => {
        if (memory !== undefined && this.#spare.length < MAX_SPARE) this.#spare.push(memory);
        resolve();
      }),
    );
  }

  /** Sends what is open, waits for every export in flight, then stops. */
  async shutdown(): Promise<void> {
    const last = this.#send();
    this.#closed = true;
    await last;
    await this.#exporter.shutdown();
  }
}
