/**
 * The span export worker as the request thread uses it: batches go to a real OTLP receiver
 * on loopback, and a sent batch's memory comes back for the next batch; a failed send keeps
 * it (the request may still be torn down).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SpanBatch } from '../../src/telemetry/otlp-span-encoder.ts';
import { type ExportDone, WorkerSpanExporter } from '../../src/telemetry/span-export.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const SCOPE = { name: 'test', version: '1' };

let receiver: OtlpReceiver;
before(async () => {
  receiver = await startOtlpReceiver();
});
after(() => receiver.close());

function batchOf(name: string): { bytes: Uint8Array; count: number } {
  const batch = new SpanBatch({ 'service.name': 'span-export-test' }, SCOPE, 4096);
  batch.add({
    ids: Buffer.from('0af7651916cd43dd8448eb211c80319cb7ad6b7169203331', 'hex'),
    idsAt: 0,
    parentSpanId: undefined,
    traceState: undefined,
    name,
    kind: 1,
    startMs: 1_764_000_000_000,
    endMs: 1_764_000_000_002,
    encodedAttributes: undefined,
    attributes: {},
    statusCode: 0,
    traceFlags: 1,
  });
  return { bytes: batch.finish(), count: batch.count };
}

function exportWith(exporter: WorkerSpanExporter, batch: { bytes: Uint8Array; count: number }) {
  return new Promise<Parameters<ExportDone>>((resolve) =>
    exporter.export(batch, (result, memory) => resolve([result, memory])),
  );
}

describe('WorkerSpanExporter', () => {
  test('a sent batch reaches the collector and its memory comes back, whole', async () => {
    const exporter = new WorkerSpanExporter(`${receiver.url}/v1/traces`, 5000);
    try {
      const batch = batchOf('memory-back');
      const size = batch.bytes.buffer.byteLength;
      const [result, memory] = await exportWith(exporter, batch);
      assert.equal(result.code, 0, result.error?.message);
      assert.equal(batch.bytes.byteLength, 0, 'transferred to the worker, not copied');
      assert.ok(memory instanceof ArrayBuffer);
      assert.equal(memory.byteLength, size);
      const [span] = await receiver.waitForSpans((s) => s.name === 'memory-back', 5000);
      assert.ok(span);
    } finally {
      await exporter.shutdown();
    }
  });

  test('a failed send reports the failure and hands no memory back', async () => {
    // A port nothing listens on (the receiver's, after a second receiver closed).
    const gone = await startOtlpReceiver();
    await gone.close();
    const exporter = new WorkerSpanExporter(`${gone.url}/v1/traces`, 2000);
    try {
      const [result, memory] = await exportWith(exporter, batchOf('never-arrives'));
      assert.notEqual(result.code, 0);
      assert.equal(memory, undefined);
    } finally {
      await exporter.shutdown();
    }
  });
});
