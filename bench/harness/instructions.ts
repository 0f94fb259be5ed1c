/**
 * Instructions per request that the load of the machine cannot move: each server runs under
 * valgrind's callgrind, gets a fixed number of checked warm-up requests, has its counters
 * zeroed (`callgrind_control -z`), answers a fixed number of measured requests and is dumped
 * (`callgrind_control -d`). Only the main thread is read (`--separate-threads=yes`, thread 1),
 * where the JavaScript runs: V8's compiler and GC helper threads, whose share of a window
 * depends on when background compilation falls, are left out, and so is the main thread's
 * own garbage collection (`--toggle-collect` on `Heap::CollectGarbage`), which lands in the
 * window or not. V8's memory reducer is off (`--no-memory-reducer`): it starts a full marking
 * on wall-clock timers when the heap looks idle, and under valgrind on a loaded machine whether
 * one fell in the window moved the main thread's count by up to 4% (its incremental steps run
 * outside `CollectGarbage`). What remains is the code that runs for the requests.
 *
 * A count does not depend on the core or on other work, so the servers are counted side by
 * side, each under its own valgrind.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stop, tail, tracked, waitForUrl } from './processes.ts';
import { OURS_ENV } from './servers.ts';
import { bodyHasSum, call2026, headers2026 } from './wire.ts';

/** A server counted at a fixed number of requests: `node <args>` with `env`, sent `headers`. */
export interface CountedServer {
  name: string;
  args: string[];
  env: Record<string, string>;
  /** Extra request headers (the API key of a secured server). */
  headers: Record<string, string>;
}

/**
 * The traced servers' timers, set past the counted window. The periodic metric export (every
 * 60 s by default) costs the same at any request rate, and under valgrind a window of fixed
 * requests lasts as long as the machine makes it: an export landing in it or not moved ratio
 * 0's count (the collection and serialisation on the main thread; the HTTP request goes out
 * from the export thread, src/telemetry/export-thread.ts). The batch span processor's delay
 * likewise: with it out of the way a batch goes out each time `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`
 * (512) spans are queued, a cost per span that stays in the count.
 */
export const PERIODIC_WORK_OUTSIDE = {
  OTEL_METRIC_EXPORT_INTERVAL: '3600000',
  OTEL_BSP_SCHEDULE_DELAY: '3600000',
} as const;

/**
 * The servers of scenario 1 and scenario 4 counted at a fixed number of requests (bench/per-request.ts
 * and the instruction figures of bench/run.ts): `plain` (our server), `edge` (API-key auth and
 * a rate limit that never fires), `ratio1`, `ratio0.1`, `ratio0` (the edge with OTLP tracing
 * to `sinkUrl` at that sample ratio), `ratio0-nometrics` (`OTEL_METRICS_EXPORTER=none`) and
 * `raw` (the raw Fastify route).
 */
export function countedServers(sinkUrl: string, apiKey: string): Record<string, CountedServer> {
  const edge = { MCP_AUTH: 'api_key', MCP_API_KEYS: `bench:${apiKey}`, MCP_RATE_LIMIT_RPS: '1000000' };
  const keyed = { 'x-api-key': apiKey };
  const traced = (ratio: string) => ({
    ...edge,
    MCP_OTEL_ENDPOINT: sinkUrl,
    MCP_OTEL_SERVICE_NAME: 'bench',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: ratio,
    ...PERIODIC_WORK_OUTSIDE,
  });
  const ours = ['bin/mcp-toolkit.js', 'run', '--transport', 'http', '--port', '0'];
  const server = (name: string, args: string[], env: Record<string, string>, headers = {}) => ({
    name,
    args,
    env: args === ours ? { ...OURS_ENV, ...env } : env,
    headers,
  });
  return Object.fromEntries(
    [
      server('plain', ours, {}),
      server('edge', ours, edge, keyed),
      server('ratio1', ours, traced('1'), keyed),
      server('ratio0.1', ours, traced('0.1'), keyed),
      server('ratio0', ours, traced('0'), keyed),
      server('ratio0-nometrics', ours, { ...traced('0'), OTEL_METRICS_EXPORTER: 'none' }, keyed),
      server('raw', ['bench/servers/raw-fastify.ts', '--port', '0'], {}),
    ].map((s) => [s.name, s]),
  );
}

/** The servers bench/run.ts counts by default: the two sides of each ratio of issue 51's "Done means". */
export const COUNTED_BY_RUN: readonly string[] = ['plain', 'ratio0', 'ratio1', 'raw'];

/** Every server `countedServers` knows. */
export const COUNTABLE: readonly string[] = [
  'plain',
  'edge',
  'ratio1',
  'ratio0.1',
  'ratio0',
  'ratio0-nometrics',
  'raw',
];

/**
 * Sends `count` checked 2026-wire calls of `add`, `connections` at a time on kept-alive
 * sockets; rejects on the first answer that is not HTTP 200 with the sum.
 */
export async function sendCalls(
  url: string,
  headers: Record<string, string>,
  count: number,
  connections: number,
): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL(url);
  let sent = 0;
  const one = (id: number) =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        { agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () =>
            res.statusCode === 200 && bodyHasSum(text)
              ? resolve()
              : reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(call2026(id)));
    });
  const worker = async () => {
    while (sent < count) await one(++sent);
  };
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    agent.destroy();
  }
}

/** Why instructions cannot be counted here, or undefined when valgrind and callgrind_control run. */
export function valgrindMissing(): string | undefined {
  for (const [cmd, arg] of [
    ['valgrind', '--version'],
    ['callgrind_control', '--version'],
  ] as const) {
    try {
      execFileSync(cmd, [arg], { stdio: 'ignore' });
    } catch {
      return `${cmd} not found (Debian/Ubuntu: apt-get install valgrind): no instruction counts`;
    }
  }
  return undefined;
}

// V8's entry to every collection, scavenges and full ones alike (recursive entries are ignored).
const GC_ENTRY =
  'v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace, v8::internal::GarbageCollectionReason, v8::GCCallbackFlags)';

/** The counted node's own flags (see above). */
const NODE_FLAGS = ['--no-memory-reducer'];

/** valgrind's arguments: one dump per thread, collection off inside V8's garbage collection. */
export function callgrindArgs(outFile: string): string[] {
  return [
    '--tool=callgrind',
    '--separate-threads=yes',
    `--toggle-collect=${GC_ENTRY}`,
    // After --toggle-collect, which turns collection at start off.
    '--collect-atstart=yes',
    // Start-up and warm-up run uninstrumented (several times faster under valgrind); V8's code
    // does not depend on it. Instrumentation is switched on before the counted requests.
    '--instr-atstart=no',
    `--callgrind-out-file=${outFile}`,
  ];
}

/** The `summary:` of each thread's file of the first dump (`<out>.1-<thread>`), by thread number. */
export function dumpedByThread(outFile: string): Map<number, number> {
  const dir = tmpdir();
  const prefix = `${outFile.slice(dir.length + 1)}.1-`;
  const byThread = new Map<number, number>();
  for (const f of readdirSync(dir)) {
    if (!f.startsWith(prefix)) continue;
    const text = readFileSync(join(dir, f), 'utf8');
    const m = /^(?:summary|totals):\s+(\d+)/m.exec(text);
    if (!m) throw new Error(`no totals in ${f}`);
    byThread.set(Number(f.slice(prefix.length)), Number(m[1]));
  }
  if (!byThread.has(1)) throw new Error(`callgrind wrote no dump of the main thread (${outFile}.1-01)`);
  return byThread;
}

export interface InstructionFigure {
  server: string;
  /** Main-thread instructions per measured request, GC excluded; null when the count failed. */
  perRequest: number | null;
  /** Every other thread's instructions per request (JIT, GC helpers, libuv): noisy, for information. */
  otherThreadsPerRequest: number | null;
  error?: string;
}

export interface CountOptions {
  warmup: number;
  requests: number;
  connections: number;
  /** A server under valgrind starts in minutes on a busy machine. */
  startTimeoutMs?: number;
  log?: (line: string) => void;
  /** A folder to keep callgrind's dumps in (`<server>.out.1-<thread>`, for callgrind_annotate); else they are removed. */
  keepDir?: string;
}

async function countOne(server: CountedServer, options: CountOptions): Promise<InstructionFigure> {
  const out = join(tmpdir(), `instructions-${process.pid}-${server.name}.out`);
  const argv = [...callgrindArgs(out), process.execPath, ...NODE_FLAGS, ...server.args];
  const child: ChildProcess = tracked(
    spawn('valgrind', argv, { env: { ...process.env, ...server.env }, stdio: ['pipe', 'pipe', 'pipe'] }),
  );
  const stderr = tail(child.stderr);
  try {
    const url = await waitForUrl(child, server.name, stderr, options.startTimeoutMs ?? 1_800_000);
    const headers = headers2026(server.headers);
    await sendCalls(url, headers, options.warmup, options.connections);
    execFileSync('callgrind_control', ['--instr=on', String(child.pid)], { stdio: 'ignore' });
    execFileSync('callgrind_control', ['-z', String(child.pid)], { stdio: 'ignore' });
    await sendCalls(url, headers, options.requests, options.connections);
    execFileSync('callgrind_control', ['-d', String(child.pid)], { stdio: 'ignore' });
    const byThread = dumpedByThread(out);
    let others = 0;
    for (const [thread, count] of byThread) if (thread !== 1) others += count;
    const figure = {
      server: server.name,
      perRequest: byThread.get(1)! / options.requests,
      otherThreadsPerRequest: others / options.requests,
    };
    options.log?.(
      `${server.name}: ${Math.round(figure.perRequest)} instructions/request on the main thread ` +
        `(other threads ${Math.round(figure.otherThreadsPerRequest)})`,
    );
    return figure;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    options.log?.(`${server.name}: not counted: ${message}`);
    return { server: server.name, perRequest: null, otherThreadsPerRequest: null, error: message };
  } finally {
    await stop(child, 60_000);
    const base = out.slice(tmpdir().length + 1);
    for (const f of readdirSync(tmpdir())) {
      if (!f.startsWith(base)) continue;
      if (options.keepDir !== undefined)
        copyFileSync(join(tmpdir(), f), join(options.keepDir, `${server.name}.out${f.slice(base.length)}`));
      rmSync(join(tmpdir(), f), { force: true });
    }
  }
}

/** Counts every server at once (a count does not depend on what else runs), in the order given. */
export function countInstructions(
  servers: readonly CountedServer[],
  options: CountOptions,
): Promise<InstructionFigure[]> {
  return Promise.all(servers.map((s) => countOne(s, options)));
}

export interface InstructionRatio {
  name: string;
  /** A's instructions per request over B's; null when either was not counted. */
  value: number | null;
  /** The most A may cost against B (issue 51's "within 15%"), or null for an informative ratio. */
  limit: number | null;
  met: boolean | null;
}

/** The ratios of issue 51's "Done means" (and ratio 1 against plain), those whose servers were counted. */
export function instructionRatios(figures: readonly InstructionFigure[]): InstructionRatio[] {
  const of = (name: string) => figures.find((f) => f.server === name);
  const ratios: InstructionRatio[] = [];
  for (const [name, a, b, limit] of [
    ['ratio 0 / plain', 'ratio0', 'plain', 1.15],
    ['plain / raw route', 'plain', 'raw', 1.15],
    ['ratio 1 / plain', 'ratio1', 'plain', null],
  ] as const) {
    const x = of(a);
    const y = of(b);
    if (x === undefined || y === undefined) continue;
    const value = x.perRequest === null || y.perRequest === null ? null : x.perRequest / y.perRequest;
    ratios.push({ name, value, limit, met: value === null || limit === null ? null : value <= limit });
  }
  return ratios;
}
