/**
 * What one server spends per request over a fixed number of requests: CPU µs (utime + stime
 * of the whole process, from /proc) and, with `--callgrind`, instructions counted by valgrind
 * (`--tool=callgrind`), which do not move with the load of a shared machine. The server runs
 * pinned to the server core; this process sends the requests from the load core, keeping
 * `--connections` in flight on kept-alive sockets, and checks every answer.
 *
 * The servers are scenario 1's and scenario 4's (bench/harness/http-contenders.ts): `plain`,
 * `edge` (API-key auth and a rate limit that never fires), `ratio1`, `ratio0.1`, `ratio0`
 * (the edge with OTLP tracing to a sink in this process at that sample ratio), `ratio0-nometrics`
 * (`OTEL_METRICS_EXPORTER=none`) and `raw` (the raw Fastify route).
 *
 * Usage: `node bench/per-request.ts [--servers plain,ratio0] [--requests N] [--warmup N]
 * [--repeat R] [--connections C] [--callgrind] [--profile DIR]`. With `--callgrind` the
 * counters are zeroed after the warm-up and dumped after the measured requests
 * (`callgrind_control`), so start-up is not counted; `--profile DIR` writes a V8 CPU profile of
 * each server (`DIR/<server>.cpuprofile`, or `DIR/<server>-<run>.cpuprofile` with `--repeat` above 1:
 * one per process, for bench/profile-summary.ts). The last line is JSON.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandLine } from './harness/command-line.ts';
import { startOtlpSink } from './harness/otlp-sink.ts';
import {
  cpuMicros,
  detectPinning,
  LOAD_CORE,
  pinSelf,
  SERVER_CORE,
  stop,
  waitForUrl,
} from './harness/processes.ts';
import { OURS_ENV } from './harness/servers.ts';
import { bodyHasSum, call2026, headers2026 } from './harness/wire.ts';

const USAGE = `node bench/per-request.ts [--servers plain,ratio0] [--requests N] [--warmup N]
  [--repeat R] [--connections C] [--callgrind] [--profile DIR]
  servers: plain, edge, ratio1, ratio0.1, ratio0, ratio0-nometrics, raw`;
const values = commandLine(USAGE, {
  servers: { type: 'string', default: 'plain,ratio0' },
  requests: { type: 'string', default: '20000' },
  warmup: { type: 'string', default: '20000' },
  repeat: { type: 'string', default: '3' },
  connections: { type: 'string', default: '16' },
  callgrind: { type: 'boolean', default: false },
  profile: { type: 'string' },
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
const KNOWN = ['plain', 'edge', 'ratio1', 'ratio0.1', 'ratio0', 'ratio0-nometrics', 'raw'];
for (const name of names) {
  if (!KNOWN.includes(name)) {
    console.error(`unknown server ${name}: expected one of ${KNOWN.join(', ')}`);
    process.exit(2);
  }
}

const pinning = detectPinning();
pinSelf(pinning, LOAD_CORE);
const sink = await startOtlpSink();
const key = randomBytes(16).toString('hex');
const edge = { MCP_AUTH: 'api_key', MCP_API_KEYS: `bench:${key}`, MCP_RATE_LIMIT_RPS: '1000000' };
const traced = (ratio: string) => ({
  ...edge,
  MCP_OTEL_ENDPOINT: sink.url,
  MCP_OTEL_SERVICE_NAME: 'bench',
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: ratio,
});
const OURS = ['bin/mcp-toolkit.js', 'run', '--transport', 'http', '--port', '0'];
const SERVERS: Record<string, { args: string[]; env: Record<string, string>; keyed: boolean }> = {
  plain: { args: OURS, env: {}, keyed: false },
  edge: { args: OURS, env: edge, keyed: true },
  ratio1: { args: OURS, env: traced('1'), keyed: true },
  'ratio0.1': { args: OURS, env: traced('0.1'), keyed: true },
  ratio0: { args: OURS, env: traced('0'), keyed: true },
  'ratio0-nometrics': { args: OURS, env: { ...traced('0'), OTEL_METRICS_EXPORTER: 'none' }, keyed: true },
  raw: { args: ['bench/servers/raw-fastify.ts', '--port', '0'], env: {}, keyed: false },
};

function start(name: string, run: number, out: string | undefined): ChildProcess {
  const server = SERVERS[name]!;
  const env = { ...process.env, ...OURS_ENV, ...server.env };
  const flags =
    values.profile === undefined
      ? []
      : [
          '--cpu-prof',
          `--cpu-prof-dir=${values.profile}`,
          `--cpu-prof-name=${repeat > 1 ? `${name}-${run}` : name}.cpuprofile`,
        ];
  const node = [process.execPath, ...flags, ...server.args];
  const argv =
    out === undefined ? node : ['valgrind', '--tool=callgrind', `--callgrind-out-file=${out}`, ...node];
  // Instruction counts do not depend on the core: under valgrind the server takes whichever is free.
  const [cmd, ...rest] =
    pinning.pinned && out === undefined ? ['taskset', '-c', String(SERVER_CORE), ...argv] : argv;
  return spawn(cmd!, rest, { env, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Sends `count` calls, `connections` at a time, each on a kept-alive socket; every answer is checked. */
async function load(url: string, headers: Record<string, string>, count: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL(url);
  let sent = 0;
  const one = (id: number) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify(call2026(id));
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
      req.end(body);
    });
  const worker = async () => {
    while (sent < count) await one(++sent);
  };
  await Promise.all(Array.from({ length: connections }, worker));
  agent.destroy();
}

/** The instructions of the last callgrind dump (its `summary:` or `totals:` line). */
function dumpedInstructions(out: string): number {
  const dir = tmpdir();
  const base = out.slice(dir.length + 1);
  const dumps = readdirSync(dir)
    .filter((f) => f.startsWith(base) && f !== base)
    .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
  const last = dumps.at(-1);
  if (last === undefined) throw new Error('callgrind wrote no dump');
  const text = readFileSync(join(dir, last), 'utf8');
  const m = /^(?:summary|totals):\s+(\d+)/m.exec(text);
  if (!m) throw new Error(`no totals in ${last}`);
  return Number(m[1]);
}

interface Figure {
  server: string;
  run: number;
  cpuUsPerRequest: number;
  instructionsPerRequest?: number;
}

const figures: Figure[] = [];
for (let run = 1; run <= repeat; run++) {
  for (const name of names) {
    const out = values.callgrind
      ? join(tmpdir(), `per-request-${process.pid}-${name}-${run}.out`)
      : undefined;
    const child = start(name, run, out);
    try {
      const url = await waitForUrl(child, name, undefined, out === undefined ? 10_000 : 600_000);
      const headers = headers2026(SERVERS[name]!.keyed ? { 'x-api-key': key } : {});
      await load(url, headers, warmup);
      if (out !== undefined)
        execFileSync('callgrind_control', ['-z', String(child.pid)], { stdio: 'ignore' });
      const before = cpuMicros(child.pid!);
      await load(url, headers, requests);
      const cpu = cpuMicros(child.pid!) - before;
      const figure: Figure = { server: name, run, cpuUsPerRequest: cpu / requests };
      if (out !== undefined) {
        execFileSync('callgrind_control', ['-d', String(child.pid)], { stdio: 'ignore' });
        figure.instructionsPerRequest = dumpedInstructions(out) / requests;
      }
      figures.push(figure);
      console.log(
        `${name} run ${run}: ${figure.cpuUsPerRequest.toFixed(1)} CPU µs/req` +
          (figure.instructionsPerRequest === undefined
            ? ''
            : `, ${Math.round(figure.instructionsPerRequest)} instructions/req`),
      );
    } finally {
      await stop(child, 20_000);
      if (out !== undefined)
        for (const f of readdirSync(tmpdir()))
          if (f.startsWith(out.slice(tmpdir().length + 1))) rmSync(join(tmpdir(), f), { force: true });
    }
  }
}
await sink.close();
console.log(JSON.stringify(figures));
