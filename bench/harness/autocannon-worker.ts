/**
 * The HTTP load generator, run as its own process so the harness can pin it to the load
 * core (`taskset -c 1 node bench/harness/autocannon-worker.ts`). It reads JSON jobs on stdin,
 * drives autocannon for each, and prints one JSON result per job on stdout. Latency percentiles are
 * computed here from autocannon's per-response times (fractional milliseconds): its own
 * histogram keeps whole milliseconds, too coarse for sub-millisecond servers.
 */
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { bodyHasSum } from './wire.ts';

export interface LoadJob {
  url: string;
  headers: Record<string, string>;
  /** Request body; each `[<id>]` becomes a fresh id per request (ids are never reused in a session). */
  body: string;
  connections: number;
  durationSec: number;
  /** The `structuredContent.sum` every response must carry. */
  expectSum: number;
}

export interface LoadResult {
  requests: number;
  durationSec: number;
  non2xx: number;
  mismatches: number;
  errors: number;
  timeouts: number;
  p50Ms: number;
  p99Ms: number;
  statusCodes: Record<string, number>;
  /** CPU time of this load generator during the round, in microseconds (is it the bottleneck?). */
  loadCpuUs: number;
}

interface AutocannonResult {
  requests: { total: number };
  duration: number;
  non2xx: number;
  mismatches: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}
interface AutocannonInstance {
  on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void;
}
type Autocannon = (
  opts: Record<string, unknown>,
  done: (err: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;

// autocannon ships CommonJS without type declarations; the shape above is all we use.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Runs one load round in this process. */
export function runLoad(job: LoadJob): Promise<LoadResult> {
  let times = new Float64Array(1 << 16);
  let count = 0;
  const cpuBefore = process.cpuUsage();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.url,
        method: 'POST',
        headers: job.headers,
        body: job.body,
        idReplacement: job.body.includes('[<id>]'),
        connections: job.connections,
        duration: job.durationSec,
        // A fast error is not a result: every body is checked, failures count as mismatches.
        verifyBody: (body: string) => bodyHasSum(body, job.expectSum),
      },
      (err, result) => {
        if (err) return reject(err);
        const cpu = process.cpuUsage(cpuBefore);
        const sorted = times.subarray(0, count).sort();
        const statusCodes: Record<string, number> = {};
        for (const [code, stat] of Object.entries(result.statusCodeStats ?? {}))
          statusCodes[code] = stat.count;
        resolve({
          requests: result.requests.total,
          durationSec: result.duration,
          non2xx: result.non2xx,
          mismatches: result.mismatches,
          errors: result.errors,
          timeouts: result.timeouts,
          p50Ms: percentile(sorted, 50),
          p99Ms: percentile(sorted, 99),
          statusCodes,
          loadCpuUs: cpu.user + cpu.system,
        });
      },
    );
    instance.on('response', (_client, _status, _bytes, ms) => {
      if (count === times.length) {
        const grown = new Float64Array(times.length * 2);
        grown.set(times);
        times = grown;
      }
      times[count++] = ms;
    });
  });
}

// One job per stdin line, one result (or `{"error"}`) per stdout line, until stdin ends: the
// process lives for the whole run, so rounds do not pay for starting Node and autocannon.
if (import.meta.main) {
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === '') continue;
    const reply = await runLoad(JSON.parse(line) as LoadJob).catch((error: unknown) => ({
      error: error instanceof Error ? error.message : String(error),
    }));
    process.stdout.write(`${JSON.stringify(reply)}\n`);
  }
}
