/**
 * Where the time of one request goes, part by part, measured in process: each part of the
 * hot path runs alone in a loop and its CPU time per operation is printed (the median of
 * several runs). It complements `bench/run.ts`, whose servers show the sum: here a part's cost
 * is not hidden by the socket writes and the load generator. Figures are for comparing parts
 * with each other on one machine; in a server, the same code costs more (caches, GC shared
 * with everything else).
 *
 * Usage: `node bench/micro.ts [--quick] [--only TEXT]` (`--quick`: a few iterations, for the
 * smoke test; `--only`: just the parts whose name contains TEXT, e.g. `--only traced`).
 */
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type ReadableSpan,
  type SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import pino from 'pino';
import { buildMcpServer } from '../src/assembly/server.ts';
import { createApiKeyAuthenticator } from '../src/auth/api-key.ts';
import { parseSettings } from '../src/config/settings.ts';
import { definePlugin } from '../src/plugin/define.ts';
import { parsePluginSettings } from '../src/plugin/loader.ts';
import { createRateLimiter } from '../src/ratelimit/limiter.ts';
import { DurationAggregator } from '../src/telemetry/duration-aggregator.ts';
import { parseTracingConfig } from '../src/telemetry/otel-settings.ts';
import { createRequestObserver } from '../src/telemetry/request-observer.ts';
import { SeriesCache } from '../src/telemetry/request-series.ts';
import { DURATION_BUCKETS_S } from '../src/telemetry/semconv.ts';
import { createTelemetry } from '../src/telemetry/tracing.ts';
import { createConnection } from '../src/transports/connection.ts';
import { createHostGuard } from '../src/transports/edge/guards.ts';
import { parseBody } from '../src/transports/edge/rules.ts';
import plugin from './add-plugin.ts';
import { startOtlpSinkThread } from './harness/otlp-sink-thread.ts';
import { call2025, call2026, headers2026, initialize2025 } from './harness/wire.ts';

const quick = process.argv.includes('--quick');
const N = quick ? 2_000 : 200_000;
const RUNS = quick ? 1 : 5;
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt === -1 ? undefined : process.argv[onlyAt + 1];

/**
 * CPU µs per operation of this thread (the one a server answers requests on): the median over RUNS runs of N operations, after a warm-up run.
 */
async function measure(op: (i: number) => unknown | Promise<unknown>, awaitEach: boolean): Promise<number> {
  const results: number[] = [];
  for (let run = -1; run < RUNS; run++) {
    const before = process.threadCpuUsage();
    for (let i = 0; i < N; i++) {
      const out = op(i);
      if (awaitEach) await out;
      // Let timers and I/O run often, as a server's event loop would, awaited parts included:
      // their promises settle in microtasks, which never yield to I/O, and a span export whose
      // answer has not arrived holds back the next one (the batch span processor exports one
      // batch at a time and drops, unserialised, what overflows its queue). Every 1,024 calls
      // was too rare: three spans in four were dropped, and their export cost went unmeasured.
      if ((i & 63) === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const used = process.threadCpuUsage(before);
    if (run >= 0) results.push((used.user + used.system) / N);
  }
  results.sort((a, b) => a - b);
  return results[results.length >> 1]!;
}

const rows: [string, number][] = [];
async function part(name: string, op: (i: number) => unknown, awaitEach = false): Promise<void> {
  if (only !== undefined && !name.includes(only)) return;
  const us = await measure(op, awaitEach);
  rows.push([name, us]);
  console.error(`${name.padEnd(58)} ${us.toFixed(2).padStart(7)} µs`);
}

// ---- the dispatcher, with the bench's add tool --------------------------------------------
const server = await buildMcpServer({
  settings: parseSettings({ MCP_LOG_LEVEL: 'silent' }),
  logger: pino({ level: 'silent' }),
  plugins: [{ definition: plugin as never, settings: parsePluginSettings(plugin as never, {}) }],
});
const http = { transport: 'http' as const, headers: headers2026() };
await part(
  'dispatcher: 2026 tools/call add (validate in and out)',
  (i) => server.dispatcher.handle(call2026(i), http),
  true,
);
{
  // The same call through one middleware that only passes it on: what `app.use` costs.
  const passThrough = definePlugin({
    name: 'pass-through',
    register(app) {
      app.use({ onCallTool: (_call, next) => next() });
    },
  });
  const withMiddleware = await buildMcpServer({
    settings: parseSettings({ MCP_LOG_LEVEL: 'silent' }),
    logger: pino({ level: 'silent' }),
    plugins: [
      { definition: plugin as never, settings: parsePluginSettings(plugin as never, {}) },
      { definition: passThrough as never, settings: {} },
    ],
  });
  await part(
    'dispatcher: 2026 tools/call add, one no-op middleware',
    (i) => withMiddleware.dispatcher.handle(call2026(i), http),
    true,
  );
  await withMiddleware.close();
}
const connection = createConnection(server, () => {});
await connection.receive(initialize2025(0));
await part(
  'stdio connection: 2025 tools/call add, reply handed to send',
  (i) => connection.receive(call2025(i)),
  true,
);
connection.close();

// ---- the edge -------------------------------------------------------------------------------
const key = 'k'.repeat(32);
const auth = createApiKeyAuthenticator([{ id: 'bench', key }]);
const headers = { 'x-api-key': key };
await part(
  'API key check: a key already accepted (one Map lookup)',
  () => auth.authenticate({ headers }),
  true,
);
const hosts = createHostGuard({ host: '127.0.0.1', allowedHosts: [], allowedOrigins: [], corsOrigins: [] });
await part('Host check: an allowed Host header (127.0.0.1:3000)', () => hosts.hostAllowed('127.0.0.1:3000'));
const body = JSON.stringify(call2026(1));
await part('HTTP body: the 2026 tools/call parsed (parseBody)', () => parseBody(body));
const limiter = createRateLimiter({ rps: 1_000_000, store: 'memory', logger: { warn() {}, info() {} } });
await part('rate limit: one token from an in-memory bucket', () => limiter.consume('id:bench'), true);

// ---- tracing ----------------------------------------------------------------------------------
function tracerWith(exportSpans: (spans: ReadableSpan[]) => void) {
  const exporter: SpanExporter = {
    export(spans, done) {
      exportSpans(spans);
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  const provider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter })] });
  return { provider, tracer: provider.getTracer('mcp-toolkit', '0.1.0') };
}
const spanOf = (tracer: ReturnType<typeof tracerWith>['tracer'], i: number) =>
  tracer
    .startSpan('tools/call add', {
      kind: SpanKind.SERVER,
      attributes: {
        'mcp.method.name': 'tools/call',
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'gen_ai.tool.name': 'add',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': '2026-07-28',
        'jsonrpc.request.id': String(i),
        'mcp.client.id': 'bench',
      },
    })
    .end();
{
  const { provider, tracer } = tracerWith((spans) => ProtobufTraceSerializer.serializeRequest(spans));
  await part('span (OpenTelemetry SDK): started, ended, batched, reference protobuf serializer', (i) =>
    spanOf(tracer, i),
  );
  await provider.shutdown();
}
/** A server whose every request is traced (our Node SDK, OTLP protobuf to a local sink). */
async function tracedServer(sinkUrl: string, ratio: string) {
  const settings = parseSettings({ MCP_LOG_LEVEL: 'silent', MCP_OTEL_SAMPLE_RATIO: ratio });
  const config = parseTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl }, settings, '0.1.0');
  const telemetry = await createTelemetry({ config });
  const logger = pino({ level: 'silent' });
  const traced = await buildMcpServer({
    settings,
    logger,
    telemetry,
    observe: createRequestObserver({ telemetry, logger }),
    plugins: [{ definition: plugin as never, settings: parsePluginSettings(plugin as never, {}) }],
  });
  return { telemetry, traced };
}
for (const ratio of ['1', '0.1', '0']) {
  // As a traced server makes it: the span from the global provider, the handler run in its
  // context, the duration histogram, the batch span processor and the OTLP protobuf exporter
  // posting to a local sink (serialised on this thread: the SDK's exporter runs where spans end).
  // The sink runs on a worker thread: what it spends reading the exports is not this thread's.
  const sink = await startOtlpSinkThread();
  const { telemetry, traced } = await tracedServer(sink.url, ratio);
  await part(
    `dispatcher, traced (sample ratio ${ratio}): 2026 tools/call add`,
    (i) => traced.dispatcher.handle(call2026(i), http),
    true,
  );
  await telemetry.shutdown(5000);
  const { requests, bytes } = await sink.stats();
  console.error(`  the sink received ${requests} exports, ${(bytes / 1e6).toFixed(1)} MB`);
  await traced.close();
  await sink.close();
}
const metricExporter: PushMetricExporter = {
  export: (_metrics, done) => done({ code: 0 }),
  forceFlush: async () => {},
  shutdown: async () => {},
};
const meterProvider = new MeterProvider({
  readers: [new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 60_000 })],
});
const histogram = meterProvider.getMeter('mcp-toolkit').createHistogram('mcp.server.operation.duration', {
  advice: { explicitBucketBoundaries: [...DURATION_BUCKETS_S] },
});
await part('metric (OpenTelemetry SDK): one duration, four attributes', () =>
  histogram.record(0.0003, {
    'mcp.method.name': 'tools/call',
    'network.transport': 'tcp',
    'gen_ai.tool.name': 'add',
    'mcp.protocol.version': '2026-07-28',
  }),
);
{
  // The attribute sets our histogram records for a successful tools/call of add, as the
  // request series builds them (MCP_OTEL_METRIC_ATTRIBUTES): the SDK hashes the whole set on
  // every record, so its size is what the record costs.
  const key = {
    method: 'tools/call',
    target: 'add',
    known: true,
    transport: 'http',
    httpVersion: '1.1',
    protocolVersion: '2026-07-28',
  } as const;
  for (const [set, recommended] of [
    ['required', false],
    ['recommended', true],
  ] as const) {
    const attributes = new SeriesCache(recommended).get(key).ok.attributes;
    await part(
      `metric (OpenTelemetry SDK): one duration, the ${set} set (${Object.keys(attributes).length} attributes)`,
      () => histogram.record(0.0003, attributes),
    );
  }
  // The least the SDK does for a request whose span is not sampled, used as its API is meant
  // to be used and with none of our code: the span started (no parent, no attributes, as our
  // pipeline starts it) by the sampler our ratio 0 uses, an async handler run in its context,
  // the span ended and the duration recorded with the default set. Beside it the same handler
  // and clock reads alone: the difference is the SDK's floor, which no code of ours can lower.
  const manager = new AsyncLocalStorageContextManager().enable();
  const provider = new TracerProvider({
    sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: { export: (_s, done) => done({ code: 0 }), shutdown: async () => {} },
      }),
    ],
  });
  const tracer = provider.getTracer('mcp-toolkit', '0.1.0');
  const attributes = new SeriesCache(false).get(key).ok.attributes;
  {
    // What our own pipeline does instead (duration-aggregator.ts): the series' own counts.
    const durations = new DurationAggregator();
    const series = new SeriesCache(false).get(key);
    await part('metric (ours, our pipeline): one duration on its series', () =>
      durations.record(series.ok, 0.0003),
    );
  }
  const handler = async (i: number) => i + 1;
  await part(
    'sampled out, SDK only: handler and clock reads alone',
    async (i) => {
      const start = performance.now();
      const out = await handler(i);
      return [out, performance.now() - start];
    },
    true,
  );
  await part(
    'sampled out, SDK only: startSpan, context.with, end, one record',
    async (i) => {
      const start = performance.now();
      const span = tracer.startSpan('tools/call add', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
      const out = await manager.with(trace.setSpan(ROOT_CONTEXT, span), handler, undefined, i);
      span.end();
      histogram.record((performance.now() - start) / 1000, attributes);
      return out;
    },
    true,
  );
  await provider.shutdown();
  manager.disable();
}
await meterProvider.shutdown();
await server.close();

console.log(
  JSON.stringify(
    { node: process.version, iterations: N, runs: RUNS, usPerOp: Object.fromEntries(rows) },
    null,
    2,
  ),
);
