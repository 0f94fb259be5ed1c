import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

let receiver: OtlpReceiver;
before(async () => {
  receiver = await startOtlpReceiver();
});
after(() => receiver.close());

const post = (path: string, contentType: string, body: string) =>
  fetch(`${receiver.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });

/** Real SDK spans, with a parent, a link, an event, a tracestate and typed attributes. */
async function sdkSpans() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'sdk-svc' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer('scope-x', '2.0.0');
  const link = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 };
  const parent = tracer.startSpan('parent');
  const { trace, context } = await import('@opentelemetry/api');
  const child = tracer.startSpan(
    'child',
    {
      kind: SpanKind.SERVER,
      attributes: { s: 'x', i: 3, d: 1.5, b: true, list: ['a', 'b'] },
      links: [{ context: link }],
    },
    trace.setSpan(context.active(), parent),
  );
  child.addEvent('happened');
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'broke' });
  child.end();
  parent.end();
  await provider.forceFlush();
  return {
    spans: exporter.getFinishedSpans(),
    parent: parent.spanContext(),
    child: child.spanContext(),
    link,
  };
}

describe('OTLP test receiver', () => {
  for (const [name, serializer, type] of [
    ['protobuf', ProtobufTraceSerializer, 'application/x-protobuf'],
    ['JSON', JsonTraceSerializer, 'application/json'],
  ] as const) {
    test(`decodes what the official ${name} serializer writes`, async () => {
      const { spans, parent, child, link } = await sdkSpans();
      const body = serializer.serializeRequest(spans);
      assert.ok(body);
      const res = await fetch(`${receiver.url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: new Uint8Array(body),
      });
      assert.equal(res.status, 200);
      const got = await receiver.waitForSpans(
        (s) => s.resource['service.name'] === 'sdk-svc' && s.spanId === child.spanId,
        1000,
      );
      const span = got[0];
      assert.equal(span?.name, 'child');
      assert.equal(span?.kind, 'SERVER');
      assert.equal(span?.traceId, parent.traceId);
      assert.equal(span?.parentSpanId, parent.spanId);
      assert.equal(span?.scope, 'scope-x');
      assert.equal(span?.scopeVersion, '2.0.0');
      assert.deepEqual(span?.attributes, { s: 'x', i: 3, d: 1.5, b: true, list: ['a', 'b'] });
      assert.deepEqual(span?.status, { code: 'ERROR', message: 'broke' });
      assert.deepEqual(span?.links, [{ traceId: link.traceId, spanId: link.spanId }]);
      assert.deepEqual(span?.events, ['happened']);
      receiver.spans.length = 0;
    });
  }

  test('accepts OTLP/JSON traces and metrics', async () => {
    const traces = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'json-svc' } }] },
          scopeSpans: [
            {
              scope: { name: 'scope' },
              spans: [
                {
                  traceId: '5b8efff798038103d269b633813fc60c',
                  spanId: 'eee19b7ec3c1b174',
                  parentSpanId: 'eee19b7ec3c1b173',
                  name: 'tools/call echo',
                  kind: 2,
                  attributes: [
                    { key: 'jsonrpc.request.id', value: { stringValue: '1' } },
                    { key: 'n', value: { intValue: '3' } },
                    { key: 'ok', value: { boolValue: true } },
                  ],
                  status: { code: 2 },
                },
              ],
            },
          ],
        },
      ],
    };
    const res = await post('/v1/traces', 'application/json', JSON.stringify(traces));
    assert.equal(res.status, 200);
    const [span] = await receiver.waitForSpans((s) => s.resource['service.name'] === 'json-svc', 1000);
    assert.equal(span?.name, 'tools/call echo');
    assert.equal(span?.kind, 'SERVER');
    assert.equal(span?.parentSpanId, 'eee19b7ec3c1b173');
    assert.deepEqual(span?.attributes, { 'jsonrpc.request.id': '1', n: 3, ok: true });
    assert.equal(span?.status.code, 'ERROR');

    const metrics = {
      resourceMetrics: [
        {
          resource: { attributes: [] },
          scopeMetrics: [
            {
              scope: { name: 's' },
              metrics: [{ name: 'json.count', unit: '1', sum: { dataPoints: [{ asInt: '4' }] } }],
            },
          ],
        },
      ],
    };
    assert.equal((await post('/v1/metrics', 'application/json', JSON.stringify(metrics))).status, 200);
    const metric = await receiver.waitForMetric('json.count', 1000);
    assert.equal(metric.kind, 'sum');
    assert.equal(metric.points[0]?.value, 4);
  });

  test('refuses other paths, media types and undecodable bodies', async () => {
    assert.equal((await post('/v1/logs', 'application/json', '{}')).status, 404);
    assert.equal((await post('/v1/traces', 'text/plain', 'x')).status, 415);
    assert.equal((await post('/v1/traces', 'application/x-protobuf', '\u00ff')).status, 400);
  });

  test('a wait that is never satisfied times out with what was received', async () => {
    await assert.rejects(
      receiver.waitForSpans((s) => s.name === 'never', 50),
      /timed out after 50 ms/,
    );
  });
});
