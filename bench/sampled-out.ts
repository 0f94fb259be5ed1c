/**
 * What tracing adds to a request, in process, side by side: the untraced dispatcher and
 * traced ones (the Node SDK of ours, OTLP protobuf to a sink on a worker thread) answer the
 * same 2026 `tools/call` in turns of 2,048 calls each, the order rotating, and the CPU time
 * of this thread is summed per server. Turns run milliseconds apart, so a machine whose speed
 * drifts (a shared one) moves both sides of each difference alike. Prints, per traced server,
 * the median over turns of its µs per call minus the untraced server's in the same turn.
 *
 * Usage: `node bench/sampled-out.ts [--turns N] [--quick]`.
 */
import pino from 'pino';
import { buildMcpServer } from '../src/assembly/server.ts';
import { parseSettings } from '../src/config/settings.ts';
import { parsePluginSettings } from '../src/plugin/loader.ts';
import { parseTracingConfig } from '../src/telemetry/otel-settings.ts';
import { createRequestObserver } from '../src/telemetry/request-observer.ts';
import { createTelemetry, type Telemetry } from '../src/telemetry/tracing.ts';
import plugin from './add-plugin.ts';
import { commandLine } from './harness/command-line.ts';
import { startOtlpSinkThread } from './harness/otlp-sink-thread.ts';
import { call2026, headers2026 } from './harness/wire.ts';

const values = commandLine('node bench/sampled-out.ts [--turns N] [--quick]', {
  turns: { type: 'string' },
  quick: { type: 'boolean' },
});
const TURNS = values.quick ? 2 : Number(values.turns ?? 30);
const PER_TURN = values.quick ? 64 : 2048;

const plugins = [{ definition: plugin as never, settings: parsePluginSettings(plugin as never, {}) }];
const http = { transport: 'http' as const, headers: headers2026() };
type Server = Awaited<ReturnType<typeof buildMcpServer>>;

interface Contender {
  name: string;
  server: Server;
  telemetry?: Telemetry;
  us: number[];
}

const sink = await startOtlpSinkThread();
const contenders: Contender[] = [];
contenders.push({
  name: 'untraced',
  server: await buildMcpServer({
    settings: parseSettings({ MCP_LOG_LEVEL: 'silent' }),
    logger: pino({ level: 'silent' }),
    plugins,
  }),
  us: [],
});

/**
 * One process holds one global OpenTelemetry pipeline, so the traced variants run one after
 * the other, each against the untraced server in the same turns.
 */
const variants: [string, Record<string, string>][] = [
  ['ratio 0', { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }],
  [
    'ratio 0, no metrics',
    {
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
      OTEL_METRICS_EXPORTER: 'none',
    },
  ],
  [
    'ratio 0, recommended metric attributes',
    {
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
      MCP_OTEL_METRIC_ATTRIBUTES: 'recommended',
    },
  ],
  ['ratio 0.1', { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }],
  ['ratio 1', { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' }],
];

async function turn(c: Contender, base: number): Promise<number> {
  const before = process.threadCpuUsage();
  for (let i = 0; i < PER_TURN; i++) {
    await c.server.dispatcher.handle(call2026(base + i), http);
    // Yield as a server's event loop would: exports, timers and I/O run.
    if ((i & 63) === 63) await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.threadCpuUsage(before);
  return (used.user + used.system) / PER_TURN;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? Number.NaN;
const untraced = contenders[0]!;
const rows: Record<string, { untraced: number; traced: number; added: number }> = {};
for (const [name, env] of variants) {
  const settings = parseSettings({ MCP_LOG_LEVEL: 'silent', ...env });
  const config = parseTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, ...env }, settings, '0.1.0');
  const telemetry = await createTelemetry({ config });
  const logger = pino({ level: 'silent' });
  const traced: Contender = {
    name,
    telemetry,
    server: await buildMcpServer({
      settings,
      logger,
      telemetry,
      observe: createRequestObserver({ telemetry, logger }),
      plugins,
    }),
    us: [],
  };
  untraced.us = [];
  const added: number[] = [];
  // Warm-up turn for both, then the measured ones.
  for (let t = -1; t < TURNS; t++) {
    const order = t % 2 === 0 ? [untraced, traced] : [traced, untraced];
    const figures = new Map<Contender, number>();
    for (const c of order) figures.set(c, await turn(c, t * PER_TURN));
    if (t < 0) continue;
    untraced.us.push(figures.get(untraced)!);
    traced.us.push(figures.get(traced)!);
    added.push(figures.get(traced)! - figures.get(untraced)!);
  }
  rows[name] = { untraced: median(untraced.us), traced: median(traced.us), added: median(added) };
  console.error(
    `${name.padEnd(22)} untraced ${rows[name].untraced.toFixed(2)} µs, traced ${rows[name].traced.toFixed(2)} µs, added ${rows[name].added.toFixed(2)} µs (median of ${TURNS} turns)`,
  );
  await telemetry.shutdown(5000);
  await traced.server.close();
}
await untraced.server.close();
await sink.close();
console.log(
  JSON.stringify({ node: process.version, turns: TURNS, perTurn: PER_TURN, usPerCall: rows }, null, 2),
);
