/**
 * What one server spends per request over a fixed number of requests: CPU µs (utime + stime
 * of the whole process, from /proc) and, with `--callgrind`, instructions counted by valgrind
 * (`--tool=callgrind`), which do not move with the load of a shared machine. The server runs
 * pinned to the server core; this process sends the requests from the load core, keeping
 * `--connections` in flight on kept-alive sockets, and checks every answer.
 *
 * The servers are scenario 1's and scenario 4's (`countedServers` in
 * bench/harness/instructions.ts), tracing to an OTLP sink in this process.
 *
 * Besides the whole process's CPU, each kind of thread's (`MainThread`, V8's `V8Worker` helpers
 * for compilation and collection), and with `--gc` what the requests cost the garbage collector:
 * bytes allocated and promoted to old space per request, the main thread's pause, how many
 * requests fill the young generation (bench/harness/gc-trace.ts). Reported, never asserted.
 *
 * Usage: `node bench/per-request.ts [--servers plain,ratio0] [--requests N] [--warmup N]
 * [--repeat R] [--connections C] [--callgrind] [--profile DIR] [--gc]`. With `--callgrind` the servers
 * are counted side by side, main thread only, GC excluded (bench/harness/instructions.ts), and
 * the ratios of issue 51 are printed; `--profile DIR` writes a V8 CPU profile of
 * each server (`DIR/<server>.cpuprofile`, or `DIR/<server>-<run>.cpuprofile` with `--repeat` above 1:
 * one per process, for bench/profile-summary.ts). The last line is JSON.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { commandLine } from './harness/command-line.ts';
import { GC_TRACE_FLAG, type GcPerRequest, gcPerRequest, gcTrace } from './harness/gc-trace.ts';
import {
  COUNTABLE,
  countedServers,
  countInstructions,
  instructionRatios,
  sendCalls,
  valgrindMissing,
} from './harness/instructions.ts';
import { startOtlpSink } from './harness/otlp-sink.ts';
import {
  cpuMicros,
  detectPinning,
  LOAD_CORE,
  pinSelf,
  SERVER_CORE,
  stop,
  threadCpuMicros,
  tracked,
  waitForUrl,
} from './harness/processes.ts';
import { headers2026 } from './harness/wire.ts';

const USAGE = `node bench/per-request.ts [--servers plain,ratio0] [--requests N] [--warmup N]
  [--repeat R] [--connections C] [--callgrind] [--profile DIR] [--gc]
  servers: plain, edge, ratio1, ratio0.1, ratio0, ratio0-nometrics, raw`;
const values = commandLine(USAGE, {
  servers: { type: 'string', default: 'plain,ratio0' },
  requests: { type: 'string', default: '20000' },
  warmup: { type: 'string', default: '20000' },
  repeat: { type: 'string', default: '3' },
  connections: { type: 'string', default: '16' },
  callgrind: { type: 'boolean', default: false },
  'callgrind-out': { type: 'string' },
  profile: { type: 'string' },
  gc: { type: 'boolean', default: false },
});
const requests = Number(values.requests);
const warmup = Number(values.warmup);
const repeat = Number(values.repeat);
const connections = Number(values.connections);
if (!(requests >= 1 && warmup >= 0 && repeat >= 1 && connections >= 1)) {
  console.error('--requests, --repeat and --connections must be positive, --warmup at least 0');
  process.exit(2);
}

const names = values.servers.split(',');
for (const name of names) {
  if (!COUNTABLE.includes(name)) {
    console.error(`unknown server ${name}: expected one of ${COUNTABLE.join(', ')}`);
    process.exit(2);
  }
}

const pinning = detectPinning();
pinSelf(pinning, LOAD_CORE);
const sink = await startOtlpSink();
const SERVERS = countedServers(sink.url, randomBytes(16).toString('hex'));

function start(name: string, run: number): ChildProcess {
  const server = SERVERS[name]!;
  const flags =
    values.profile === undefined
      ? []
      : [
          '--cpu-prof',
          `--cpu-prof-dir=${values.profile}`,
          `--cpu-prof-name=${repeat > 1 ? `${name}-${run}` : name}.cpuprofile`,
        ];
  if (values.gc) flags.push(GC_TRACE_FLAG);
  const node = [process.execPath, ...flags, ...server.args];
  const [cmd, ...rest] = pinning.pinned ? ['taskset', '-c', String(SERVER_CORE), ...node] : node;
  return tracked(
    spawn(cmd!, rest, { env: { ...process.env, ...server.env }, stdio: ['pipe', 'pipe', 'pipe'] }),
  );
}

interface Figure {
  server: string;
  run: number;
  cpuUsPerRequest?: number;
  /** CPU µs per request of each kind of thread (`MainThread`, `V8Worker`, ...). */
  threadsUsPerRequest?: Record<string, number>;
  /** With `--gc`: what the requests cost the garbage collector (bench/harness/gc-trace.ts). */
  gc?: GcPerRequest;
  instructionsPerRequest?: number | null;
}

const figures: Figure[] = [];
if (values.callgrind) {
  const missing = valgrindMissing();
  if (missing !== undefined) {
    console.error(missing);
    await sink.close();
    process.exit(2);
  }
  for (let run = 1; run <= repeat; run++) {
    const counted = await countInstructions(
      names.map((n) => SERVERS[n]!),
      {
        warmup,
        requests,
        connections,
        log: (line) => console.log(`run ${run}: ${line}`),
        ...(values['callgrind-out'] === undefined ? {} : { keepDir: values['callgrind-out'] }),
      },
    );
    for (const f of counted) figures.push({ server: f.server, run, instructionsPerRequest: f.perRequest });
    for (const r of instructionRatios(counted))
      console.log(
        `run ${run}: ${r.name}: ${r.value === null ? 'not counted' : r.value.toFixed(3)}` +
          (r.limit === null || r.value === null ? '' : ` (at most ${r.limit}: ${r.met ? 'met' : 'MISSED'})`),
      );
  }
} else {
  for (let run = 1; run <= repeat; run++) {
    for (const name of names) {
      const child = start(name, run);
      try {
        const gc = values.gc ? gcTrace(child.stdout) : undefined;
        const url = await waitForUrl(child, name);
        const headers = headers2026(SERVERS[name]!.headers);
        await sendCalls(url, headers, warmup, connections);
        const gcBefore = gc?.read();
        const threadsBefore = threadCpuMicros(child.pid!);
        const before = cpuMicros(child.pid!);
        await sendCalls(url, headers, requests, connections);
        const cpu = cpuMicros(child.pid!) - before;
        const threads: Record<string, number> = {};
        for (const [thread, us] of threadCpuMicros(child.pid!))
          threads[thread] = (us - (threadsBefore.get(thread) ?? 0)) / requests;
        const figure: Figure = {
          server: name,
          run,
          cpuUsPerRequest: cpu / requests,
          threadsUsPerRequest: threads,
        };
        if (gc !== undefined && gcBefore !== undefined)
          figure.gc = gcPerRequest(gcBefore, gc.read(), requests);
        figures.push(figure);
        const byThread = Object.entries(threads)
          .map(([thread, us]) => `${thread} ${us.toFixed(1)}`)
          .join(', ');
        console.log(`${name} run ${run}: ${(cpu / requests).toFixed(1)} CPU µs/req (${byThread})`);
        if (figure.gc !== undefined)
          console.log(
            `${name} run ${run}: GC per request: ${Math.round(figure.gc.allocatedBytes)} B allocated, ` +
              `${figure.gc.promotedBytes.toFixed(1)} B promoted, ${figure.gc.pauseUs.toFixed(2)} µs paused; ` +
              `a scavenge every ${figure.gc.requestsPerScavenge?.toFixed(0) ?? '–'} requests, ` +
              `${figure.gc.fullCollections} full collections`,
          );
      } finally {
        await stop(child, 20_000);
      }
    }
  }
}
await sink.close();
console.log(JSON.stringify(figures));
// A server that could not be counted fails the run (its error was printed above).
if (figures.some((f) => f.instructionsPerRequest === null)) process.exitCode = 1;
