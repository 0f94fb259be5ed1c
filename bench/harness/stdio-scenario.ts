/**
 * Scenario 3: stdio with one request in flight at a time. The harness (pinned to the load
 * core) drives each server (pinned to the server core): write a request line, wait for the
 * response line, repeat for the round's duration; servers take turns round by round.
 */
import { performance } from 'node:perf_hooks';
import {
  finish,
  type RoundFigures,
  roundLine,
  roundOrder,
  type ServerResult,
  unavailable,
} from './figures.ts';
import type { Context } from './http-scenario.ts';
import { cpuMicros } from './processes.ts';
import type { ServerSpec } from './servers.ts';
import { StdioPeer } from './stdio-peer.ts';
import { bodyHasSum, call2025, call2026, checkCallResult, INITIALIZED, initialize2025 } from './wire.ts';

interface Driven {
  spec: ServerSpec;
  peer: StdioPeer;
  result: ServerResult;
  /** Builds the request line for an id without JSON.stringify in the hot loop. */
  line: (id: number) => string;
  nextId: number;
}

function lineMaker(wire: '2025' | '2026'): (id: number) => string {
  const template = JSON.stringify((wire === '2025' ? call2025 : call2026)(-1));
  const [before, after] = template.split('"id":-1');
  return (id) => `${before}"id":${id}${after}\n`;
}

async function open(ctx: Context, spec: ServerSpec): Promise<Driven | ServerResult> {
  const peer = new StdioPeer(ctx.pinning, spec);
  try {
    if (ctx.options.stdioWire === '2025') {
      const init = JSON.parse(await peer.request(initialize2025(0))) as {
        result?: { protocolVersion?: unknown };
      };
      if (typeof init.result?.protocolVersion !== 'string') throw new Error('initialize: no protocolVersion');
      peer.notify(INITIALIZED);
    }
    const line = lineMaker(ctx.options.stdioWire);
    const why = checkCallResult(JSON.parse(await peer.requestLine(1, line(1))), 1);
    if (why !== undefined) throw new Error(`wrong answer: ${why}`);
    const result: ServerResult = { id: spec.id, label: spec.label, status: 'ok', notes: [], rounds: [] };
    return { spec, peer, result, line, nextId: 2 };
  } catch (error) {
    await peer.close();
    ctx.log(`  ${spec.label}: not available: ${error instanceof Error ? error.message : String(error)}`);
    return unavailable(spec.id, spec.label, error);
  }
}

/** Sends requests one at a time for `durationSec`; returns the latencies (ms) and wrong answers. */
async function drive(d: Driven, durationSec: number): Promise<{ latencies: Float64Array; failures: number }> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let failures = 0;
  const end = performance.now() + durationSec * 1000;
  while (performance.now() < end) {
    const id = d.nextId++;
    const t0 = performance.now();
    const reply = await d.peer.requestLine(id, d.line(id));
    const ms = performance.now() - t0;
    if (!bodyHasSum(reply)) failures++;
    if (count === latencies.length) {
      const grown = new Float64Array(count * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = ms;
  }
  return { latencies: latencies.subarray(0, count).sort(), failures };
}

function at(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function round(d: Driven, durationSec: number): Promise<RoundFigures> {
  const cpuBefore = cpuMicros(d.peer.pid);
  const driverBefore = process.cpuUsage();
  const t0 = performance.now();
  const { latencies, failures } = await drive(d, durationSec);
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = cpuMicros(d.peer.pid) - cpuBefore;
  const driver = process.cpuUsage(driverBefore);
  return {
    requests: latencies.length,
    durationSec: elapsed,
    rps: latencies.length / elapsed,
    p50Ms: at(latencies, 50),
    p99Ms: at(latencies, 99),
    cpuUsPerReq: latencies.length > 0 ? cpu / latencies.length : Number.NaN,
    failures,
    serverBusy: cpu / (elapsed * 1e6),
    loadBusy: (driver.user + driver.system) / (elapsed * 1e6),
  };
}

export async function runStdioGroup(
  ctx: Context,
  specs: readonly ServerSpec[],
): Promise<Map<string, ServerResult>> {
  const results = new Map<string, ServerResult>();
  const driven: Driven[] = [];
  try {
    for (const spec of specs) {
      const opened = await open(ctx, spec);
      if ('peer' in opened) driven.push(opened);
      else results.set(spec.id, opened);
    }
    const { warmupSec, durationSec, rounds } = ctx.options;
    if (warmupSec > 0) {
      for (const d of driven) {
        await drive(d, warmupSec).catch((error: unknown) => {
          d.result.status = 'unavailable';
          d.result.error = `died during warm-up: ${error instanceof Error ? error.message : String(error)}`;
        });
      }
    }
    for (let i = 0; i < rounds; i++) {
      for (const d of roundOrder(driven, i)) {
        if (d.result.status !== 'ok') continue;
        try {
          const f = await round(d, durationSec);
          d.result.rounds.push(f);
          ctx.log(roundLine(i, rounds, d.spec.label, f));
        } catch (error) {
          d.result.status = 'unavailable';
          d.result.error = `died during round ${i + 1}: ${error instanceof Error ? error.message : String(error)}`;
          ctx.log(`  ${d.spec.label}: ${d.result.error}`);
        }
      }
    }
  } finally {
    await Promise.all(driven.map((d) => d.peer.close()));
  }
  for (const d of driven) {
    if (d.peer.strayLines > 0) d.result.notes.push(`${d.peer.strayLines} stray lines on stdout`);
    results.set(d.spec.id, d.result.status === 'unavailable' ? d.result : finish(d.result));
  }
  return results;
}
