/**
 * The HTTP load generator in C: wrk (https://github.com/wg/wrk; Debian package `wrk`), one
 * thread pinned to the load core. It costs a few µs per request where autocannon costs
 * 30 to 60, so the server, not the load generator, is what saturates, and req/s ratios read
 * as capacity ratios.
 *
 * A Lua script (written per round) gives each request a fresh id and checks every response
 * body the way autocannon's `verifyBody` does (`bodyHasSum` in wire.ts); its `done` hook
 * prints one JSON line with the counts and wrk's latency percentiles (µs resolution).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadJob, LoadResult } from './autocannon-worker.ts';
import { LOAD_CORE, type Pinning } from './processes.ts';

const MARK = 'WRK-RESULT ';

/** Whether a usable `wrk` is on PATH. */
export function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // wrk prints its version and usage, then exits 1: present all the same.
    return (error as { status?: number }).status === 1;
  }
}

/** A Lua string literal of any text (long brackets cannot hold every string; escapes can). */
function luaString(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    if (byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c) out += String.fromCharCode(byte);
    else out += `\\${byte.toString().padStart(3, '0')}`;
  }
  return `${out}"`;
}

/**
 * The round's script. Request ids are `<round>-<n>`: unique within the run, since a 2025
 * session must never see an id twice. Body checks mirror `bodyHasSum`.
 */
export function wrkScript(job: LoadJob, round: string): string {
  const [before, after] = job.body.includes('[<id>]') ? job.body.split('[<id>]', 2) : [job.body, undefined];
  const headerLines = Object.entries(job.headers)
    .map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`)
    .join('\n');
  return `
wrk.method = "POST"
${headerLines}
local before, after = ${luaString(before ?? '')}, ${after === undefined ? 'nil' : luaString(after)}
local prefix = ${luaString(`${round}-`)}
local sum = ${luaString(`"sum":${job.expectSum}`)}
local threads = {}
local n = 0
mismatches = 0
non2xx = 0

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  prefix = prefix .. id .. "-"
  if after == nil then wrk.body = before end
end

function request()
  if after == nil then return wrk.format() end
  n = n + 1
  return wrk.format(nil, nil, nil, before .. prefix .. n .. after)
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  elseif not string.find(body, sum, 1, true) or string.find(body, '"isError":true', 1, true)
      or string.find(body, '"error":', 1, true) then
    mismatches = mismatches + 1
  end
end

function done(summary, latency, requests)
  local bad, other = 0, 0
  for _, t in ipairs(threads) do
    bad = bad + t:get("mismatches")
    other = other + t:get("non2xx")
  end
  local e = summary.errors
  io.write(string.format(
    '${MARK}{"requests":%d,"durationUs":%d,"mismatches":%d,"non2xx":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50Us":%d,"p99Us":%d}\\n',
    summary.requests, summary.duration, bad, other, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`;
}

interface WrkSummary {
  requests: number;
  durationUs: number;
  mismatches: number;
  non2xx: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50Us: number;
  p99Us: number;
}

let rounds = 0;

/**
 * Runs one round with wrk on the load core and reports it as autocannon's worker does. The
 * load generator's CPU time comes from the shell that waited for it (`cutime`/`cstime` of
 * /proc/<pid>/stat, which count reaped children).
 */
export async function runWrk(job: LoadJob, pinning: Pinning): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const script = join(dir, 'round.lua');
  writeFileSync(script, wrkScript(job, `${process.pid}.${++rounds}`));
  const wrk = [
    'wrk',
    '-t1',
    `-c${job.connections}`,
    `-d${job.durationSec}s`,
    '--timeout',
    '10s',
    '-s',
    script,
    job.url,
  ];
  const command = pinning.pinned ? ['taskset', '-c', String(LOAD_CORE), ...wrk] : wrk;
  // The shell runs wrk, then prints its own stat line: fields 16 and 17 hold the CPU ticks of
  // the children it waited for, i.e. wrk's.
  const shell =
    '"$@"; rc=$?; echo; echo "STAT $(cat /proc/$$/stat)"; echo "TCK $(getconf CLK_TCK)"; exit $rc';
  try {
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) => {
      execFile('sh', ['-c', shell, 'sh', ...command], { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
        if (error) {
          const said = `${stderr} ${stdout
            .split('\n')
            .filter((l) => !/^(STAT|TCK) /.test(l))
            .join(' ')}`;
          reject(
            new Error(
              `wrk failed (exit ${String(error.code)}): ${said.replace(/\s+/g, ' ').trim().slice(0, 300)}`,
            ),
          );
        } else resolve({ stdout });
      });
    });
    const line = stdout.split('\n').find((l) => l.startsWith(MARK));
    if (line === undefined) throw new Error(`wrk printed no result: ${stdout.slice(0, 400)}`);
    const s = JSON.parse(line.slice(MARK.length)) as WrkSummary;
    const stat = /^STAT .*\) (.*)$/m.exec(stdout)?.[1]?.split(' ') ?? [];
    const tck = Number(/^TCK (\d+)/m.exec(stdout)?.[1]) || 100;
    // After ") ": state is field 3, so field N sits at index N - 3; cutime 16, cstime 17.
    const ticks = Number(stat[13]) + Number(stat[14]);
    return {
      requests: s.requests,
      durationSec: s.durationUs / 1e6,
      non2xx: s.non2xx,
      mismatches: s.mismatches,
      errors: s.connect + s.read + s.write,
      timeouts: s.timeout,
      p50Ms: s.p50Us / 1000,
      p99Ms: s.p99Us / 1000,
      statusCodes: {},
      loadCpuUs: Number.isFinite(ticks) ? (ticks * 1e6) / tck : Number.NaN,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
