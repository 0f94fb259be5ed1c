/**
 * The request duration our own pipeline aggregates (duration-aggregator.ts) against the SDK's
 * own histogram: the same recordings, collected by one SDK metric reader that holds both (the
 * SDK's instrument and our `MetricProducer`), must give the same data points: attributes,
 * count, sum, min, max, bucket boundaries and counts, and start times by the SDK's rules, for
 * cumulative and delta readers alike.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Attributes, HrTime } from '@opentelemetry/api';
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  type HistogramMetricData,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import { DurationAggregator, durationKey } from '../../src/telemetry/duration-aggregator.ts';
import { durationProducer } from '../../src/telemetry/duration-producer.ts';
import { metricAttributes } from '../../src/telemetry/request-series.ts';
import { DURATION_BUCKETS_S, DURATION_DESCRIPTION, Metric } from '../../src/telemetry/semconv.ts';

/** A reader collected by hand, with a fixed temporality. */
class ManualReader extends MetricReader {
  constructor(temporality: AggregationTemporality, producers: ConstructorParameters<typeof MetricReader>[0]) {
    super({ ...producers, aggregationTemporalitySelector: () => temporality });
  }
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

const SDK_NAME = 'sdk.duration';

/** One SDK histogram and our aggregator side by side, collected by the same reader. */
function sideBySide(temporality: AggregationTemporality) {
  const durations = new DurationAggregator();
  let reader: ManualReader | undefined;
  const producer = durationProducer(durations, { name: 'mcp-toolkit', version: '1.2.3' }, (type) =>
    (reader as ManualReader).selectAggregationTemporality(type),
  );
  reader = new ManualReader(temporality, { metricProducers: [producer] });
  const provider = new MeterProvider({ readers: [reader] });
  const histogram = provider.getMeter('mcp-toolkit', '1.2.3').createHistogram(SDK_NAME, {
    unit: 's',
    advice: { explicitBucketBoundaries: [...DURATION_BUCKETS_S] },
  });
  const ok = durationKey(
    metricAttributes({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'add' }),
    true,
  );
  const failed = durationKey(
    metricAttributes({
      'mcp.method.name': 'tools/call',
      'error.type': '-32602',
      'rpc.response.status_code': '-32602',
    }),
    true,
  );
  return {
    reader,
    ok,
    failed,
    /** Each recording into both; an unkept key is built anew each time, as a one-off series is. */
    record(key: 'ok' | 'failed' | 'unkept', seconds: number) {
      const k =
        key === 'ok'
          ? ok
          : key === 'failed'
            ? failed
            : durationKey(metricAttributes({ 'mcp.method.name': 'other' }), false);
      histogram.record(seconds, k.attributes);
      durations.record(k, seconds);
    },
    async collect() {
      const { resourceMetrics, errors } = await reader.collect();
      assert.deepEqual(errors, []);
      const metrics = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics) as HistogramMetricData[];
      const sdk = metrics.find((m) => m.descriptor.name === SDK_NAME);
      const ours = metrics.find((m) => m.descriptor.name === Metric.OperationDuration);
      return { sdk, ours };
    },
    shutdown: () => provider.shutdown(),
  };
}

const byAttributes = (points: readonly DataPoint<Histogram>[]) =>
  new Map(points.map((p) => [JSON.stringify(p.attributes), p]));

const later = (a: HrTime, b: HrTime) => a[0] > b[0] || (a[0] === b[0] && a[1] >= b[1]);

/** Point by point: the same sets, counts, buckets, extremes, sums (to rounding). */
function assertSamePoints(sdk: HistogramMetricData | undefined, ours: HistogramMetricData | undefined) {
  assert.ok(sdk !== undefined && ours !== undefined, 'both report');
  assert.equal(ours.aggregationTemporality, sdk.aggregationTemporality);
  assert.equal(ours.dataPointType, sdk.dataPointType);
  const expected = byAttributes(sdk.dataPoints);
  const actual = byAttributes(ours.dataPoints);
  assert.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort());
  for (const [key, want] of expected) {
    const got = actual.get(key) as DataPoint<Histogram>;
    assert.deepEqual(got.value.buckets, want.value.buckets, key);
    assert.equal(got.value.count, want.value.count, key);
    assert.equal(got.value.min, want.value.min, key);
    assert.equal(got.value.max, want.value.max, key);
    assert.ok(Math.abs((got.value.sum ?? 0) - (want.value.sum ?? 0)) < 1e-9, `${key}: sum`);
    assert.ok(later(got.endTime, got.startTime), `${key}: starts before it ends`);
  }
}

const VALUES = [0.0003, 0.01, 0.0100001, 0.02, 0.3, 1, 4.2, 29.9, 300, 301, 0.004];

describe('the duration our pipeline aggregates, against the SDK histogram', () => {
  for (const [name, temporality] of [
    ['cumulative', AggregationTemporality.CUMULATIVE],
    ['delta', AggregationTemporality.DELTA],
  ] as const) {
    test(`${name}: every collection has the SDK's points`, async () => {
      const pair = sideBySide(temporality);
      for (const v of VALUES) pair.record('ok', v);
      pair.record('failed', 0.05);
      pair.record('unkept', 0.07);
      pair.record('unkept', 0.2);
      const first = await pair.collect();
      assertSamePoints(first.sdk, first.ours);
      assert.equal(first.ours?.descriptor.unit, 's');
      assert.equal(first.ours?.descriptor.description, DURATION_DESCRIPTION);
      // A window in which only one set records: delta reports it alone, cumulative all three.
      pair.record('ok', 0.009);
      const second = await pair.collect();
      assertSamePoints(second.sdk, second.ours);
      assert.equal(second.ours?.dataPoints.length, name === 'delta' ? 1 : 3);
      // A set silent for a window and recording again.
      pair.record('failed', 7);
      const third = await pair.collect();
      assertSamePoints(third.sdk, third.ours);
      if (name === 'delta') {
        // The SDK's start times: a set in the last report starts at that report's end; one
        // that was not starts at its first recording in the window.
        const okSecond = second.ours?.dataPoints[0];
        assert.deepEqual(okSecond?.startTime, first.ours?.dataPoints[0]?.endTime);
        const failedThird = third.ours?.dataPoints.find((p) => p.attributes['error.type'] === '-32602');
        assert.ok(later(failedThird?.startTime as HrTime, second.ours?.dataPoints[0]?.endTime as HrTime));
      } else {
        const start = (points: readonly DataPoint<Histogram>[] | undefined, attrs: Attributes) =>
          points?.find((p) => JSON.stringify(p.attributes) === JSON.stringify(attrs))?.startTime;
        assert.deepEqual(
          start(third.ours?.dataPoints, pair.ok.attributes),
          start(first.ours?.dataPoints, pair.ok.attributes),
        );
      }
      await pair.shutdown();
    });
  }

  test('two readers of different temporalities both see every recording', async () => {
    const durations = new DurationAggregator();
    const scope = { name: 'mcp-toolkit', version: '1' };
    const cumulative = durationProducer(durations, scope, () => AggregationTemporality.CUMULATIVE);
    const delta = durationProducer(durations, scope, () => AggregationTemporality.DELTA);
    const key = durationKey(metricAttributes({ 'mcp.method.name': 'ping' }), true);
    const count = async (producer: typeof delta) =>
      (await producer.collect()).resourceMetrics.scopeMetrics[0]?.metrics[0]?.dataPoints.reduce(
        (sum, p) => sum + (p.value as Histogram).count,
        0,
      ) ?? 0;
    durations.record(key, 0.001);
    assert.equal(await count(delta), 1);
    durations.record(key, 0.001);
    assert.equal(await count(cumulative), 2);
    assert.equal(await count(delta), 1);
    assert.equal(await count(delta), 0);
    assert.equal(await count(cumulative), 2);
  });

  test('sets no series keeps are bounded: past 2000, one overflow set', async () => {
    const durations = new DurationAggregator();
    const producer = durationProducer(
      durations,
      { name: 'mcp-toolkit', version: '1' },
      () => AggregationTemporality.CUMULATIVE,
    );
    for (let i = 0; i < 2500; i++)
      durations.record(durationKey(metricAttributes({ 'error.type': `E${i}` }), false), 0.001);
    // The same content again lands on its first set, not a new one.
    durations.record(durationKey(metricAttributes({ 'error.type': 'E7' }), false), 0.001);
    const points = (await producer.collect()).resourceMetrics.scopeMetrics[0]?.metrics[0]?.dataPoints ?? [];
    assert.equal(points.length, 2001);
    const overflow = points.find((p) => p.attributes['otel.metric.overflow'] === true);
    assert.equal((overflow?.value as Histogram | undefined)?.count, 500);
    const e7 = points.find((p) => p.attributes['error.type'] === 'E7');
    assert.equal((e7?.value as Histogram | undefined)?.count, 2);
  });
});
