/**
 * Where our HTTP server's CPU goes, thread by thread. The server runs pinned to the server
 * core under load (wrk, or autocannon when wrk is missing) for a few rounds after a warm-up;
 * each round prints its req/s and, per request, the CPU time of each kind of thread, read
 * from /proc/<pid>/task/<tid>/stat: the request thread (`MainThread`, which with `--traced`
 * also runs the OpenTelemetry SDK's batch span processor and OTLP exporter), any worker threads
 * (`WorkerThread`) and V8's helper threads (`V8Worker`: garbage collection and compilation).
 * V8's CPU profiler cannot tell these apart on one core: it
 * charges another thread's time to whatever the request thread was running.
 *
 * Usage: `node bench/threads.ts [--traced] [--edge] [--rounds R] [--duration S]
 * [--connections N] [--load wrk|autocannon]`. `--traced` exports spans to an OTLP sink in
 * this process (on the load core), `--edge` turns on API-key auth and a rate limit that
 * never fires: scenario 4's settings. The last line is the JSON of every round.
 */
import { randomBytes } from 'node:crypto';
import { commandLine } from './harness/command-line.ts';
import { LoadGenerator, verifyCall } from './harness/http-load.ts';
import { startOtlpSink } from './harness/otlp-sink.ts';
import {
  detectPinning,
  LOAD_CORE,
  pinSelf,
  SERVER_CORE,
  spawnPinned,
  stop,
  threadCpuMicros,
  waitForUrl,
} from './harness/processes.ts';
import { oursHttp } from './harness/servers.ts';
import { call2026, headers2026 } from './harness/wire.ts';
import { hasWrk } from './harness/wrk-load.ts';

const values = commandLine(
  'node bench/threads.ts [--traced] [--edge] [--rounds R] [--duration S] [--connections N] [--load wrk|autocannon]',
  {
    traced: { type: 'boolean', default: false },
    edge: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    load: { type: 'string' },
  },
);
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const connections = Number(values.connections);
if (!(rounds >= 1 && duration > 0 && connections >= 1)) {
  console.error('--rounds, --duration and --connections must be positive numbers');
  process.exit(2);
}
if (values.load !== undefined && values.load !== 'wrk' && values.load !== 'autocannon') {
  console.error('--load: expected wrk or autocannon');
  process.exit(2);
}
const tool = (values.load as 'wrk' | 'autocannon' | undefined) ?? (hasWrk() ? 'wrk' : 'autocannon');

const pinning = detectPinning();
pinSelf(pinning, LOAD_CORE);
const sink = await startOtlpSink();
const load = new LoadGenerator(pinning, tool);
const key = randomBytes(16).toString('hex');
const env: Record<string, string> = {
  ...(values.traced ? { MCP_OTEL_ENDPOINT: sink.url, MCP_OTEL_SERVICE_NAME: 'bench' } : {}),
  ...(values.edge
    ? { MCP_AUTH: 'api_key', MCP_API_KEYS: `bench:${key}`, MCP_RATE_LIMIT_RPS: '1000000' }
    : {}),
};
const spec = oursHttp(env);
const child = spawnPinned(pinning, SERVER_CORE, spec.args, spec.env);
const pid = child.pid ?? -1;
const perRound: { rps: number; usPerRequest: Record<string, number> }[] = [];
try {
  const url = await waitForUrl(child, 'mcp-toolkit');
  const headers = headers2026(values.edge ? { 'x-api-key': key } : {});
  await verifyCall(url, headers, call2026(1), 1);
  const job = (durationSec: number) => ({
    url,
    headers,
    body: JSON.stringify(call2026('[<id>]')),
    connections,
    durationSec,
    expectSum: 5,
  });
  await load.run(job(duration)); // warm-up
  console.error(
    `mcp-toolkit${values.edge ? ' + auth, limit' : ''}${values.traced ? ' + OTLP' : ''}: ${rounds} rounds of ${duration} s, ${tool}, ${pinning.pinned ? 'pinned' : 'not pinned'}`,
  );
  for (let i = 0; i < rounds; i++) {
    const before = threadCpuMicros(pid);
    const r = await load.run(job(duration));
    const after = threadCpuMicros(pid);
    const failures = r.non2xx + r.mismatches + r.errors + r.timeouts;
    if (failures > 0) throw new Error(`${failures} responses were not a correct answer`);
    const usPerRequest: Record<string, number> = {};
    // Every thread alive at the end is listed, idle ones at 0 (the clock counts in 10 ms ticks).
    for (const [name, us] of after) {
      usPerRequest[name] = Math.round(((us - (before.get(name) ?? 0)) / r.requests) * 100) / 100;
    }
    const rps = r.requests / r.durationSec;
    perRound.push({ rps, usPerRequest });
    const parts = Object.entries(usPerRequest)
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => `${name} ${us.toFixed(1)}`);
    console.error(
      `  round ${i + 1}/${rounds}: ${rps.toFixed(0)} req/s; CPU µs per request: ${parts.join(', ')}`,
    );
  }
} finally {
  await stop(child);
  await load.close();
  await sink.close();
}
console.log(JSON.stringify({ traced: values.traced, edge: values.edge, tool, rounds: perRound }));
