/**
 * One group of HTTP servers measured side by side: each is started pinned to the server
 * core, checked with a full verification request, warmed up, then measured in interleaved
 * rounds (A, B, C, A, B, C, ...) by wrk or autocannon pinned to the load core, with the server's
 * CPU time read from /proc around every round.
 */
import type { ChildProcess } from 'node:child_process';
import type { LoadJob } from './autocannon-worker.ts';
import {
  finish,
  type RoundFigures,
  roundLine,
  roundOrder,
  type ServerResult,
  unavailable,
} from './figures.ts';
import type { LoadGenerator } from './http-load.ts';
import type { Options } from './options.ts';
import { cpuMicros, type Pinning, SERVER_CORE, spawnPinned, stop, tail, waitForUrl } from './processes.ts';
import type { ServerSpec } from './servers.ts';
import { SUM } from './wire.ts';

export interface LoadRequest {
  headers: Record<string, string>;
  /** Body sent on every request; `[<id>]` is replaced with a fresh id each time. */
  body: string;
  notes: string[];
}

export interface HttpContender {
  /** Unique within the group. */
  key: string;
  spec: ServerSpec;
  nodeFlags?: string[];
  /** Verifies the server answers correctly (throws if not) and returns the request to load it with. */
  prepare(url: string): Promise<LoadRequest>;
  /** Notes gathered after the rounds (e.g. what the OTLP sink received). */
  afterRounds?(): string[];
  /**
   * A check run on the live server after its rounds; a reason marks it failed. For checks
   * whose request differs from the load's: sent before the rounds, it would leave the server's
   * JIT with a request shape the others never see (see scenario4Contenders).
   */
  checkAfterRounds?(url: string): Promise<string | undefined>;
}

export interface Context {
  pinning: Pinning;
  /** The HTTP load generator (wrk or autocannon), pinned to the load core. */
  load: LoadGenerator;
  options: Options;
  log: (line: string) => void;
}

interface Running {
  readonly contender: HttpContender;
  child: ChildProcess;
  url: string;
  request: LoadRequest;
  readonly result: ServerResult;
  stderr: () => string;
}

async function start(ctx: Context, contender: HttpContender): Promise<Running | ServerResult> {
  const { spec } = contender;
  const child = spawnPinned(ctx.pinning, SERVER_CORE, spec.args, spec.env, contender.nodeFlags);
  const stderr = tail(child.stderr);
  try {
    const url = await waitForUrl(child, spec.label, stderr);
    const request = await contender.prepare(url);
    const result: ServerResult = {
      id: spec.id,
      label: spec.label,
      status: 'ok',
      notes: request.notes,
      rounds: [],
      processes: 1,
    };
    return { contender, child, url, request, result, stderr };
  } catch (error) {
    await stop(child);
    ctx.log(`  ${spec.label}: not available: ${error instanceof Error ? error.message : String(error)}`);
    return unavailable(spec.id, spec.label, error);
  }
}

function job(ctx: Context, r: Running, durationSec: number): LoadJob {
  return {
    url: r.url,
    headers: r.request.headers,
    body: r.request.body,
    connections: ctx.options.connections,
    durationSec,
    expectSum: SUM,
  };
}

async function round(ctx: Context, r: Running, durationSec: number): Promise<RoundFigures> {
  const pid = r.child.pid ?? -1;
  const cpuBefore = cpuMicros(pid);
  const load = await ctx.load.run(job(ctx, r, durationSec));
  const cpu = cpuMicros(pid) - cpuBefore;
  return {
    requests: load.requests,
    durationSec: load.durationSec,
    rps: load.requests / load.durationSec,
    p50Ms: load.p50Ms,
    p99Ms: load.p99Ms,
    cpuUsPerReq: load.requests > 0 ? cpu / load.requests : Number.NaN,
    failures: load.non2xx + load.mismatches + load.errors + load.timeouts,
    serverBusy: cpu / (load.durationSec * 1e6),
    loadBusy: load.loadCpuUs / (load.durationSec * 1e6),
  };
}

/** Untimed load on each server still measured, for its JIT (`--warmup` seconds each). */
async function warmUp(ctx: Context, running: readonly Running[]): Promise<void> {
  if (ctx.options.warmupSec <= 0) return;
  for (const r of running) {
    if (r.result.status !== 'ok') continue;
    await ctx.load.run(job(ctx, r, ctx.options.warmupSec)).catch((error: unknown) => {
      r.result.status = 'unavailable';
      r.result.error = `warm-up failed: ${error instanceof Error ? error.message : String(error)}`;
    });
  }
}

/** Replaces a server's process with a new one, verified as the first was; its rounds so far stay. */
async function restart(ctx: Context, r: Running): Promise<void> {
  await stop(r.child);
  const started = await start(ctx, r.contender);
  if (!('child' in started)) {
    r.result.status = 'unavailable';
    r.result.error = `a new process did not start: ${started.error ?? 'unknown'}`;
    return;
  }
  r.child = started.child;
  r.url = started.url;
  r.request = started.request;
  r.stderr = started.stderr;
  r.result.processes = (r.result.processes ?? 1) + 1;
}

/** Measures the contenders side by side; returns one result per contender key. */
export async function runHttpGroup(
  ctx: Context,
  contenders: readonly HttpContender[],
): Promise<Map<string, ServerResult>> {
  const results = new Map<string, ServerResult>();
  const running: Running[] = [];
  try {
    // One after the other: each must be listening within 10 s, and a boot is CPU-bound on the
    // server core, so starting them together would only make each slower.
    for (const c of contenders) {
      const started = await start(ctx, c);
      if ('child' in started) running.push(started);
      else results.set(c.key, started);
    }
    const { durationSec, rounds } = ctx.options;
    const processes = Math.max(1, Math.min(ctx.options.processes, rounds));
    await warmUp(ctx, running);
    for (let i = 0; i < rounds; i++) {
      // The rounds run on `processes` processes of each server in turn, all replaced at the same
      // round: how fast one process of a server runs is partly a draw (the same server, started
      // again, has read 20% faster or slower), and a median over rounds of one process each
      // would be one draw per server.
      if (i > 0 && Math.floor((i * processes) / rounds) !== Math.floor(((i - 1) * processes) / rounds)) {
        for (const r of running) if (r.result.status === 'ok') await restart(ctx, r);
        await warmUp(ctx, running);
      }
      for (const r of roundOrder(running, i)) {
        if (r.result.status !== 'ok') continue;
        try {
          const figures = await round(ctx, r, durationSec);
          r.result.rounds.push(figures);
          ctx.log(roundLine(i, rounds, r.contender.spec.label, figures));
        } catch (error) {
          // A server that dies under load is a result too: it stops taking part and says why.
          r.result.status = 'unavailable';
          r.result.error = `died during round ${i + 1}: ${r.stderr() || (error instanceof Error ? error.message : String(error))}`;
          ctx.log(`  ${r.contender.spec.label}: ${r.result.error}`);
        }
      }
    }
    for (const r of running) {
      if (r.result.status !== 'ok' || !r.contender.checkAfterRounds) continue;
      const why = await r.contender
        .checkAfterRounds(r.url)
        .catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
      if (why !== undefined) {
        r.result.status = 'failed';
        r.result.error = why;
        ctx.log(`  ${r.contender.spec.label}: ${why}`);
      }
    }
  } finally {
    await Promise.all(running.map((r) => stop(r.child)));
  }
  for (const r of running) {
    r.result.notes.push(...(r.contender.afterRounds?.() ?? []));
    results.set(r.contender.key, r.result.status === 'unavailable' ? r.result : finish(r.result));
  }
  return results;
}
