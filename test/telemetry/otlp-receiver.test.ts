import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

let receiver: OtlpReceiver;
before(async () => {
  receiver = await startOtlpReceiver();
});
after(() => receiver.close());

const post = (path: string, contentType: string, body: string) =>
  fetch(`${receiver.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });

// The protobuf path is exercised by the tracing tests (our exporters send protobuf).
describe('OTLP test receiver', () => {
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
