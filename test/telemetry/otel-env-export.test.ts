/**
 * The standard OTEL_* variables reach the wire: our Node SDK, configured from them, exports to
 * a real OTLP receiver that decodes both protobuf and JSON. (Parsing and precedence:
 * otel-settings.test.ts.)
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { parseSettings } from '../../src/config/settings.ts';
import { parseTracingConfig } from '../../src/telemetry/otel-settings.ts';
import { createTelemetry } from '../../src/telemetry/tracing.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';

let receiver: OtlpReceiver;
let serial = 0;
before(async () => {
  receiver = await startOtlpReceiver();
});
after(() => receiver.close());

async function withEnv(t: { after(fn: () => unknown): void }, env: Record<string, string>) {
  const service = `env-${process.pid}-${++serial}`;
  const full = { OTEL_SERVICE_NAME: service, OTEL_BSP_SCHEDULE_DELAY: '20', ...env };
  const telemetry = await createTelemetry({ config: parseTracingConfig(full, parseSettings(full), '1') });
  t.after(() => telemetry.shutdown(2000));
  const mine = (s: ReceivedSpan) => s.resource['service.name'] === service;
  return { telemetry, service, mine };
}

describe('OTEL_* on the wire', () => {
  test('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, _PROTOCOL=http/json, _HEADERS and _COMPRESSION=gzip', async (t) => {
    const before = receiver.requests.length;
    const { telemetry, mine } = await withEnv(t, {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k1',
      OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'gzip',
    });
    telemetry.startRequestSpan({ method: 'tools/list', requestId: 1, transport: 'stdio' }).end({});
    await telemetry.shutdown(2000);
    const [span] = await receiver.waitForSpans(mine, 5000);
    assert.equal(span?.name, 'tools/list');
    const sent = receiver.requests.slice(before).filter((r) => r.path === '/v1/traces');
    assert.ok(sent.length > 0);
    for (const r of sent) {
      assert.equal(r.contentType, 'application/json');
      assert.equal(r.headers['x-collector-key'], 'k1');
      assert.equal(r.headers['content-encoding'], 'gzip');
    }
    // Only the traces endpoint was given: no metrics were sent.
    assert.equal(receiver.requests.slice(before).filter((r) => r.path === '/v1/metrics').length, 0);
  });

  test('OTEL_EXPORTER_OTLP_ENDPOINT with the default protocol sends protobuf; _METRICS_PROTOCOL and OTEL_METRIC_EXPORT_INTERVAL', async (t) => {
    const before = receiver.requests.length;
    const { telemetry, service } = await withEnv(t, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
      OTEL_METRIC_EXPORT_INTERVAL: '100',
    });
    telemetry.startRequestSpan({ method: 'ping', transport: 'stdio' }).end({});
    // Exported on the interval, before any shutdown.
    for (let i = 0; i < 100; i++) {
      if (receiver.metrics.some((m) => m.resource['service.name'] === service)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(
      receiver.metrics.some(
        (m) => m.resource['service.name'] === service && m.name === 'mcp.server.operation.duration',
      ),
    );
    await telemetry.shutdown(2000);
    const sent = receiver.requests.slice(before);
    assert.ok(
      sent.filter((r) => r.path === '/v1/traces').every((r) => r.contentType === 'application/x-protobuf'),
    );
    assert.ok(
      sent.filter((r) => r.path === '/v1/metrics').every((r) => r.contentType === 'application/json'),
    );
  });

  test('OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES make the resource', async (t) => {
    const { telemetry, mine } = await withEnv(t, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging,team=a%20b,service.name=ignored',
    });
    telemetry.startRequestSpan({ method: 'ping', transport: 'stdio' }).end({});
    await telemetry.shutdown(2000);
    const [span] = await receiver.waitForSpans(mine, 5000);
    assert.equal(span?.resource['deployment.environment.name'], 'staging');
    assert.equal(span?.resource.team, 'a b');
    assert.equal(span?.resource['service.version'], '1');
  });

  test('OTEL_PROPAGATORS=b3: the parent is read from a b3 key in _meta, a traceparent is not', async (t) => {
    const { telemetry, mine } = await withEnv(t, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_PROPAGATORS: 'b3',
    });
    telemetry
      .startRequestSpan({
        method: 'ping',
        requestId: 'b3',
        transport: 'stdio',
        meta: { b3: `${TRACE}-${SPAN}-1` },
      })
      .end({});
    telemetry
      .startRequestSpan({
        method: 'ping',
        requestId: 'w3c',
        transport: 'stdio',
        meta: { traceparent: `00-${TRACE}-${SPAN}-01` },
      })
      .end({});
    await telemetry.shutdown(2000);
    const spans = await receiver.waitForSpans(mine, 5000, 2);
    const byId = (id: string) => spans.find((s) => s.attributes['jsonrpc.request.id'] === id);
    assert.equal(byId('b3')?.traceId, TRACE);
    assert.equal(byId('b3')?.parentSpanId, SPAN);
    assert.equal(byId('w3c')?.parentSpanId, undefined);
  });

  test('OTEL_TRACES_SAMPLER=parentbased_always_off with _ARG ignored: only sampled parents are followed', async (t) => {
    const { telemetry, mine } = await withEnv(t, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_TRACES_SAMPLER: 'parentbased_always_off',
    });
    telemetry.startRequestSpan({ method: 'ping', requestId: 'root', transport: 'stdio' }).end({});
    telemetry
      .startRequestSpan({
        method: 'ping',
        requestId: 'child',
        transport: 'stdio',
        meta: { traceparent: `00-${TRACE}-${SPAN}-01` },
      })
      .end({});
    await telemetry.shutdown(2000);
    const spans = await receiver.waitForSpans(mine, 5000);
    assert.deepEqual(
      spans.map((s) => s.attributes['jsonrpc.request.id']),
      ['child'],
    );
  });

  test('OTEL_TRACES_SAMPLER=traceidratio with OTEL_TRACES_SAMPLER_ARG=0 records nothing, parent or not', async (t) => {
    const { telemetry, mine } = await withEnv(t, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    });
    const span = telemetry.startRequestSpan({
      method: 'ping',
      transport: 'stdio',
      meta: { traceparent: `00-${TRACE}-${SPAN}-01` },
    });
    assert.equal(span.span.isRecording(), false);
    span.end({});
    await telemetry.shutdown(2000);
    assert.equal(receiver.spans.filter(mine).length, 0);
  });

  test('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: an export to a collector that never answers fails after it', async (t) => {
    // Accepts the connection and the body, never answers.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    t.after(() => {
      silent.closeAllConnections();
      return new Promise((resolve) => silent.close(resolve));
    });
    const failures: number[] = [];
    const env = {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1/traces`,
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '300',
      OTEL_BSP_SCHEDULE_DELAY: '10',
    };
    const telemetry = await createTelemetry({
      config: parseTracingConfig(env, parseSettings(env), '1'),
      onExportError: () => failures.push(Date.now()),
    });
    t.after(() => telemetry.shutdown(500));
    const started = Date.now();
    telemetry.startRequestSpan({ method: 'ping', transport: 'stdio' }).end({});
    for (let i = 0; i < 100 && failures.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(failures.length, 1, 'the export failed (timed out)');
    // The default timeout is 10 s; this one is 300 ms (retries included, well under 5 s).
    assert.ok((failures[0] ?? 0) - started < 5000, `failed after ${(failures[0] ?? 0) - started} ms`);
  });
});
