/**
 * The request-duration histogram we aggregate ourselves (src/telemetry/duration-histogram.ts)
 * must export what the SDK's explicit-bucket histogram would: the same buckets, counts, sum,
 * min and max per attribute set, cumulative or delta as the exporter asks, and the SDK's
 * cardinality limit with an overflow series.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  type HistogramMetricData,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { type DurationAttributes, DurationHistogram } from '../../src/telemetry/duration-histogram.ts';

const BOUNDS = [0.01, 0.1, 1];
const call = (over: Partial<DurationAttributes> = {}): DurationAttributes => ({
  method: 'tools/call',
  transport: 'tcp',
  tool: 'add',
  protocolVersion: '2026-07-28',
  errorType: undefined,
  ...over,
});

function histogram(temporality = AggregationTemporality.CUMULATIVE, clock = { ms: 1_000_000 }) {
  return new DurationHistogram({
    name: 'mcp.server.operation.duration',
    description: 'd',
    unit: 's',
    boundaries: BOUNDS,
    scope: { name: 'mcp-toolkit', version: '1.0.0' },
    resource: resourceFromAttributes({ 'service.name': 't' }),
    temporality: () => temporality,
    now: () => clock.ms,
  });
}

async function points(h: DurationHistogram) {
  const { resourceMetrics } = await h.collect();
  const metric = resourceMetrics.scopeMetrics[0]?.metrics[0] as HistogramMetricData | undefined;
  return { metric, points: metric?.dataPoints ?? [] };
}

describe('duration histogram', () => {
  it('counts each duration in its bucket (upper bounds inclusive) with sum, min and max', async () => {
    const h = histogram();
    for (const v of [0.005, 0.01, 0.05, 0.5, 1, 3]) h.record(v, call());
    const { metric, points: ps } = await points(h);
    assert.equal(metric?.descriptor.name, 'mcp.server.operation.duration');
    assert.equal(metric?.descriptor.unit, 's');
    assert.equal(metric?.aggregationTemporality, AggregationTemporality.CUMULATIVE);
    assert.equal(ps.length, 1);
    const p = ps[0]!;
    assert.deepEqual(p.value.buckets, { boundaries: BOUNDS, counts: [2, 1, 2, 1] });
    assert.equal(p.value.count, 6);
    assert.ok(Math.abs((p.value.sum ?? Number.NaN) - 4.565) < 1e-12);
    assert.equal(p.value.min, 0.005);
    assert.equal(p.value.max, 3);
    assert.deepEqual(p.attributes, {
      'mcp.method.name': 'tools/call',
      'network.transport': 'tcp',
      'gen_ai.tool.name': 'add',
      'mcp.protocol.version': '2026-07-28',
    });
  });

  it('keeps one series per attribute set, and leaves absent attributes out', async () => {
    const h = histogram();
    h.record(0.001, call());
    h.record(0.001, call({ errorType: 'tool_error' }));
    h.record(0.001, call({ tool: undefined, protocolVersion: undefined, method: 'tools/list' }));
    // Values that would run together if keys were plainly joined stay apart.
    h.record(0.001, call({ tool: '-', protocolVersion: undefined }));
    h.record(0.001, call({ tool: undefined, protocolVersion: '-' }));
    h.record(0.002, call());
    const { points: ps } = await points(h);
    assert.equal(ps.length, 5);
    const full = ps.find(
      (p) => p.attributes['gen_ai.tool.name'] === 'add' && p.attributes['error.type'] === undefined,
    );
    assert.equal(full?.value.count, 2);
    const list = ps.find((p) => p.attributes['mcp.method.name'] === 'tools/list');
    assert.deepEqual(list?.attributes, { 'mcp.method.name': 'tools/list', 'network.transport': 'tcp' });
    assert.equal(ps.find((p) => p.attributes['error.type'] === 'tool_error')?.value.count, 1);
  });

  it('cumulative: every collection reports everything since the start; delta: since the last one', async () => {
    const clock = { ms: 1_000_000 };
    const cumulative = histogram(AggregationTemporality.CUMULATIVE, clock);
    const delta = histogram(AggregationTemporality.DELTA, clock);
    for (const h of [cumulative, delta]) h.record(0.5, call());
    clock.ms += 60_000;
    const c1 = (await points(cumulative)).points[0]!;
    const d1 = (await points(delta)).points[0]!;
    for (const h of [cumulative, delta]) h.record(0.5, call());
    clock.ms += 60_000;
    const c2 = (await points(cumulative)).points[0]!;
    const d2 = (await points(delta)).points[0]!;
    assert.equal(c1.value.count, 1);
    assert.equal(c2.value.count, 2);
    assert.deepEqual(c2.startTime, c1.startTime);
    assert.deepEqual(c2.endTime, [1_120, 0]);
    assert.equal(d1.value.count, 1);
    assert.equal(d2.value.count, 1);
    assert.deepEqual(d2.startTime, d1.endTime);
    // Nothing recorded since the last delta collection: nothing to report.
    assert.deepEqual((await points(delta)).points, []);
  });

  it('past 2,000 series, new attribute sets go to one overflow series (the SDK default limit)', async () => {
    const h = histogram();
    for (let i = 0; i < 2100; i++) h.record(0.001, call({ tool: `tool_${i}` }));
    h.record(0.001, call({ tool: 'tool_5' }));
    const { points: ps } = await points(h);
    assert.equal(ps.length, 2000);
    const overflow = ps.find((p) => p.attributes['otel.metric.overflow'] === true);
    assert.equal(overflow?.value.count, 101);
    assert.equal(ps.find((p) => p.attributes['gen_ai.tool.name'] === 'tool_5')?.value.count, 2);
  });

  it('ignores values that are not durations, and reports no series that holds nothing', async () => {
    const h = histogram();
    for (const v of [-1, Number.NaN, Number.POSITIVE_INFINITY]) h.record(v, call());
    const held = h.series(call({ tool: 'held' }));
    assert.deepEqual((await points(h)).points, []);
    h.recordIn(held, 0.25);
    h.recordIn(held, Number.NaN);
    const [p] = (await points(h)).points;
    assert.equal(p?.attributes['gen_ai.tool.name'], 'held');
    assert.equal(p?.value.count, 1);
  });

  it('is exported by the SDK reader next to the SDK instruments', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const h = histogram();
    const provider = new MeterProvider({
      readers: [
        new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000, metricProducers: [h] }),
      ],
    });
    provider.getMeter('mcp-toolkit').createCounter('c').add(1);
    h.record(0.2, call());
    await provider.forceFlush();
    const names = exporter
      .getMetrics()
      .flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics.map((m) => m.descriptor.name)));
    assert.deepEqual(names.sort(), ['c', 'mcp.server.operation.duration']);
    await provider.shutdown();
  });
});
