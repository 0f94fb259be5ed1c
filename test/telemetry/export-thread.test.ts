/**
 * OTLP exports leave from their own thread (src/telemetry/export-thread.ts): the spans and
 * metrics reach a real receiver, the thread that serves requests opens no HTTP client request
 * for them, and a thread that dies, a collector that never answers and a shutdown each end an
 * export with an error instead of losing the server or hanging it.
 */
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { parseSettings } from '../../src/config/settings.ts';
import { type ExportTarget, ExportThread } from '../../src/telemetry/export-thread.ts';
import { parseTracingConfig } from '../../src/telemetry/otel-settings.ts';
import { createTelemetry } from '../../src/telemetry/tracing.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

let receiver: OtlpReceiver;
before(async () => {
  receiver = await startOtlpReceiver();
});
after(() => receiver.close());

/** Counts the HTTP client requests this thread starts (Node publishes each on this channel). */
function clientRequests(): { count(): number; stop(): void } {
  let n = 0;
  const onStart = () => {
    n++;
  };
  subscribe('http.client.request.start', onStart);
  return { count: () => n, stop: () => unsubscribe('http.client.request.start', onStart) };
}

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
}

function target(url: string, timeoutMillis = 2000): ExportTarget {
  return {
    url: `${url}/v1/traces`,
    headers: {},
    timeoutMillis,
    compression: 'none',
    signal: 'TRACES',
    path: 'v1/traces',
    contentType: 'application/x-protobuf',
  };
}

/** A collector that holds every request until `release()`, then answers 200. */
async function holdingCollector() {
  const held: ServerResponse[] = [];
  let count = 0;
  let arrived: () => void = () => {};
  const server = createServer((req, res) => {
    req.resume();
    count++;
    held.push(res);
    arrived();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Resolves once `n` requests have arrived in all. */
    until: (n: number) =>
      new Promise<void>((resolve) => {
        arrived = () => {
          if (count >= n) resolve();
        };
        arrived();
      }),
    /** Answers every request held so far: 200, an empty (full-success) response. */
    release: () => {
      for (const res of held.splice(0))
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    },
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const workerOf = (thread: ExportThread) => (thread as unknown as { worker?: Worker }).worker;

describe('OTLP exports from their own thread', () => {
  test('spans and metrics reach the collector; the serving thread opens no HTTP client request', async () => {
    const watch = clientRequests();
    try {
      // The channel sees this thread's requests: one of our own is counted.
      assert.equal(await get(`${receiver.url}/not-otlp`), 404);
      assert.equal(watch.count(), 1);

      const service = `thread-${process.pid}`;
      const env = {
        OTEL_SERVICE_NAME: service,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '20',
        OTEL_METRIC_EXPORT_INTERVAL: '100',
      };
      const telemetry = await createTelemetry({ config: parseTracingConfig(env, parseSettings(env), '1') });
      telemetry.startRequestSpan({ method: 'tools/list', requestId: 1, transport: 'stdio' }).end({});
      const [span] = await receiver.waitForSpans((s) => s.resource['service.name'] === service, 10_000);
      assert.equal(span?.name, 'tools/list');
      const metric = await receiver.waitForMetric('mcp.server.operation.duration', 10_000);
      assert.equal(metric.resource['service.name'], service);
      await telemetry.shutdown(5000);
      assert.equal(watch.count(), 1, 'the exports went out from this thread');
    } finally {
      watch.stop();
    }
  });

  test('an export in flight when the thread dies fails at once; the next one starts a new thread', async (t) => {
    const collector = await holdingCollector();
    t.after(() => collector.close());
    const thread = new ExportThread({ traces: target(collector.url, 5000) });
    const transport = thread.transport('traces');
    t.after(() => transport.shutdown());
    const inFlight = transport.send(new Uint8Array([1, 2, 3]), 5000);
    await collector.until(1);
    const first = workerOf(thread);
    assert.ok(first);
    await first.terminate();
    const response = await inFlight;
    assert.equal(response.status, 'failure');
    assert.match(response.status === 'failure' ? response.error.message : '', /export thread exited/);

    const again = transport.send(new Uint8Array([4]), 5000);
    await collector.until(2);
    assert.notEqual(workerOf(thread), first, 'a new thread sends the next export');
    collector.release();
    assert.equal((await again).status, 'success');
  });

  test('a collector that never answers: the export ends at its timeout', async (t) => {
    const collector = await holdingCollector();
    t.after(() => collector.close());
    const thread = new ExportThread({ traces: target(collector.url, 300) });
    const transport = thread.transport('traces');
    t.after(() => transport.shutdown());
    const response = await transport.send(new Uint8Array([1]), 300);
    assert.equal(response.status, 'failure');
  });

  test('after every transport is shut down the thread ends and a late export fails with a reason', async () => {
    const thread = new ExportThread({ traces: target(receiver.url) });
    const transport = thread.transport('traces');
    const sent = await transport.send(new Uint8Array(), 2000);
    // An empty request is a valid (empty) protobuf export: the receiver takes it.
    assert.equal(sent.status, 'success');
    const worker = workerOf(thread);
    assert.ok(worker);
    const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
    transport.shutdown();
    await exited;
    const late = await transport.send(new Uint8Array([1]), 2000);
    assert.equal(late.status, 'failure');
    assert.match(late.status === 'failure' ? late.error.message : '', /shut down/);
  });
});
