/**
 * The two extra figures of issue 6: memory with many idle 2025-wire sessions, and the time
 * from process start to the first answered request over stdio.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { median } from './figures.ts';
import { openSession } from './http-load.ts';
import type { Context } from './http-scenario.ts';
import { rssKiB, SERVER_CORE, spawnPinned, stop, waitForUrl } from './processes.ts';
import type { ServerSpec } from './servers.ts';
import { StdioPeer } from './stdio-peer.ts';
import { headers2025, INITIALIZED, initialize2025 } from './wire.ts';

export interface MemoryResult {
  id: string;
  label: string;
  status: 'ok' | 'unavailable';
  error?: string;
  sessions?: number;
  /** RSS after a few warm-up sessions, before the measured ones. */
  rssBeforeKiB?: number;
  rssAfterKiB?: number;
  perSessionKiB?: number;
}

const CONCURRENCY = 10;
const WARM_SESSIONS = 20;

async function openMany(url: string, n: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const { sessionId } = await openSession(url, headers2025(), initialize2025(0), INITIALIZED);
      if (sessionId === null) throw new Error('the server hands out no Mcp-Session-Id: it keeps no sessions');
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** RSS of a fresh server before and after opening `ctx.options.sessions` idle sessions. */
export async function measureSessionMemory(ctx: Context, spec: ServerSpec): Promise<MemoryResult> {
  const child = spawnPinned(ctx.pinning, SERVER_CORE, spec.args, spec.env);
  const base = { id: spec.id, label: spec.label };
  try {
    const url = await waitForUrl(child, spec.label);
    const pid = child.pid ?? -1;
    await openMany(url, WARM_SESSIONS);
    await sleep(500);
    const rssBeforeKiB = rssKiB(pid);
    await openMany(url, ctx.options.sessions);
    await sleep(1000);
    const rssAfterKiB = rssKiB(pid);
    const sessions = ctx.options.sessions;
    return {
      ...base,
      status: 'ok',
      sessions,
      rssBeforeKiB,
      rssAfterKiB,
      perSessionKiB: (rssAfterKiB - rssBeforeKiB) / sessions,
    };
  } catch (error) {
    return { ...base, status: 'unavailable', error: error instanceof Error ? error.message : String(error) };
  } finally {
    await stop(child);
  }
}

export interface StartupResult {
  id: string;
  label: string;
  status: 'ok' | 'unavailable';
  error?: string;
  /** Median milliseconds from spawn to the `initialize` response. */
  medianMs?: number;
  samplesMs?: number[];
}

/**
 * Spawns each stdio server `--samples` times (servers take turns), writes `initialize`
 * at once, and times spawn → response line.
 */
export async function measureStartup(ctx: Context, specs: readonly ServerSpec[]): Promise<StartupResult[]> {
  const samples = new Map<string, number[]>(specs.map((s) => [s.label, []]));
  const errors = new Map<string, string>();
  for (let i = 0; i < ctx.options.startupSamples; i++) {
    for (const spec of specs) {
      if (errors.has(spec.label)) continue;
      const t0 = performance.now();
      const peer = new StdioPeer(ctx.pinning, spec);
      try {
        const line = await peer.request(initialize2025(0));
        const ms = performance.now() - t0;
        if (!line.includes('"protocolVersion"'))
          throw new Error(`not an initialize result: ${line.slice(0, 200)}`);
        samples.get(spec.label)!.push(ms);
      } catch (error) {
        errors.set(spec.label, error instanceof Error ? error.message : String(error));
      } finally {
        await peer.close();
      }
    }
  }
  return specs.map((spec) => {
    const error = errors.get(spec.label);
    if (error !== undefined) return { id: spec.id, label: spec.label, status: 'unavailable', error };
    const ms = samples.get(spec.label)!;
    return { id: spec.id, label: spec.label, status: 'ok', medianMs: median(ms), samplesMs: ms };
  });
}
