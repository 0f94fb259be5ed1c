/**
 * The run's results: the ratios against issue 6's targets, the printed tables and the JSON
 * document written to `bench/results/`. Only ratios within one run mean anything: absolute
 * figures move with the machine and its load.
 */
import type { MemoryResult, StartupResult } from './extras.ts';
import { median, type RoundFigures, type ServerResult } from './figures.ts';
import type { InstructionFigure, InstructionRatio } from './instructions.ts';

export interface ScenarioResult {
  title: string;
  servers: Record<string, ServerResult>;
}

export interface Ratio {
  name: string;
  /**
   * The target's measure: requests per second of A over B, the median of the per-round
   * ratios (rounds are interleaved, so each pair ran under the same machine conditions).
   * null when either side was not measured correctly.
   */
  value: number | null;
  /**
   * Capacity from CPU cost: B's CPU µs per request over A's, median of per-round ratios. It
   * is what req/s would show if the server core were saturated; it is the better measure when
   * the load generator or other work on the machine, not the server, limits req/s.
   */
  cpuValue: number | null;
  /**
   * B's median latency over A's, median of per-round ratios. With one request in flight (stdio)
   * it is the throughput ratio without the scheduling stalls that inflate the mean on a busy
   * machine; with a fixed number of connections it tracks throughput too (Little's law).
   */
  p50Value: number | null;
  /** The target (at least), or null for an informative ratio. */
  target: number | null;
  met: boolean | null;
}

export interface Results {
  generatedAt: string;
  machine: Record<string, unknown>;
  options: Record<string, unknown>;
  scenarios: Record<string, ScenarioResult>;
  ratios: Ratio[];
  memory: MemoryResult[];
  startup: StartupResult[];
  /** Main-thread instructions per request under callgrind; absent when not asked for. */
  instructions?: InstructionResults;
}

export interface InstructionResults {
  warmup: number;
  requests: number;
  figures: InstructionFigure[];
  ratios: InstructionRatio[];
  /** Why nothing was counted (valgrind missing). */
  skipped?: string;
}

/** A server's rounds: undefined when it was not part of the run, null when not measured correctly. */
function rounds(
  s: Record<string, ScenarioResult>,
  scenario: string,
  server: string,
): RoundFigures[] | null | undefined {
  const r = s[scenario]?.servers[server];
  if (r === undefined) return undefined;
  return r.status === 'ok' && r.rounds.length > 0 ? r.rounds : null;
}

function perRound(
  a: RoundFigures[],
  b: RoundFigures[],
  f: (x: RoundFigures, y: RoundFigures) => number,
): number {
  const n = Math.min(a.length, b.length);
  return median(Array.from({ length: n }, (_, i) => f(a[i]!, b[i]!)));
}

function ratio(
  name: string,
  a: RoundFigures[] | null | undefined,
  b: RoundFigures[] | null | undefined,
  target: number | null,
): Ratio | undefined {
  if (a === undefined || b === undefined) return undefined;
  if (a === null || b === null)
    return { name, value: null, cpuValue: null, p50Value: null, target, met: null };
  const value = perRound(a, b, (x, y) => x.rps / y.rps);
  const cpuValue = perRound(a, b, (x, y) => y.cpuUsPerReq / x.cpuUsPerReq);
  const p50Value = perRound(a, b, (x, y) => y.p50Ms / x.p50Ms);
  return { name, value, cpuValue, p50Value, target, met: target === null ? null : value >= target };
}

/** The targets of issue 6, each a ratio within this run; only those whose servers took part. */
export function computeRatios(s: Record<string, ScenarioResult>): Ratio[] {
  const r = (name: string, a: [string, string], b: [string, string], target: number | null) =>
    ratio(name, rounds(s, ...a), rounds(s, ...b), target);
  const all = [
    r('scenario 1: ours / SDK v2', ['1', 'ours'], ['1', 'sdk'], 4),
    r('scenario 1: ours / tmcp', ['1', 'ours'], ['1', 'tmcp'], 1),
    r('scenario 1: ours / raw Fastify', ['1', 'ours'], ['1', 'raw'], 0.5),
    r('scenario 2: ours / SDK v2 createMcpHandler', ['2', 'ours'], ['2', 'sdk'], 3),
    r('scenario 2: ours / SDK v2 sessionful', ['2', 'ours'], ['2', 'sdk-session'], null),
    r('scenario 3: ours / SDK v2 serveStdio', ['3', 'ours'], ['3', 'sdk'], 1.2),
    r('scenario 3: ours / bare echo', ['3', 'ours'], ['3', 'echo'], 0.8),
    r('scenario 4 at sample ratio 1: ours secured / ours', ['4', 'ours'], ['1', 'ours'], 0.7),
    r('scenario 4 at sample ratio 0.1: ours secured / ours', ['4', 'sampled'], ['1', 'ours'], 0.85),
    r('scenario 4 at sample ratio 0: ours secured / ours', ['4', 'unsampled'], ['1', 'ours'], 0.92),
    r(
      'scenario 4 at ratio 0, no metrics: ours secured / ours',
      ['4', 'unsampled-nometrics'],
      ['1', 'ours'],
      null,
    ),
    r('scenario 4 part: auth + limit only / ours', ['4', 'edge'], ['1', 'ours'], null),
    r('scenario 4 at sample ratio 1 / raw Fastify + OTel Node SDK', ['4', 'ours'], ['4', 'raw-otel'], 1.2),
  ];
  return all.filter((x): x is Ratio => x !== undefined);
}

function fmt(n: number | undefined, digits = 0): string {
  return n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits);
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '),
    )
    .join('\n');
}

/** The human-readable report printed at the end of a run. */
export function formatResults(results: Results): string {
  const out: string[] = [];
  for (const [n, scenario] of Object.entries(results.scenarios)) {
    out.push(`\nScenario ${n}: ${scenario.title}`);
    const rows = [
      ['server', 'status', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'server busy', 'load busy'],
    ];
    for (const r of Object.values(scenario.servers)) {
      const m = r.median;
      rows.push([
        r.label,
        r.status,
        fmt(m?.rps),
        fmt(m?.p50Ms, 3),
        fmt(m?.p99Ms, 3),
        fmt(m?.cpuUsPerReq),
        m ? `${fmt(m.serverBusy * 100)}%` : '-',
        m ? `${fmt(m.loadBusy * 100)}%` : '-',
      ]);
    }
    out.push(table(rows));
    for (const r of Object.values(scenario.servers)) {
      if (r.error !== undefined) out.push(`  ${r.label}: ${r.error}`);
      for (const note of r.notes) out.push(`  ${r.label}: ${note}`);
    }
  }
  if (results.ratios.length > 0) {
    out.push(
      '\nRatios against the targets of issue 6 (medians of per-round ratios; CPU/req and p50: theirs over ours)',
    );
    const rows = [['ratio', 'req/s', 'CPU/req', 'p50', 'target (req/s)', 'verdict']];
    for (const r of results.ratios) {
      const verdict =
        r.met === null ? (r.value === null ? 'not measured' : 'info') : r.met ? 'met' : 'MISSED';
      const target = r.target === null ? '-' : `>= ${r.target}`;
      const [v, c, l] = [r.value, r.cpuValue, r.p50Value].map((x) => fmt(x ?? undefined, 2));
      rows.push([r.name, v!, c!, l!, target, verdict]);
    }
    out.push(table(rows));
  }
  if (results.instructions !== undefined) out.push(formatInstructions(results.instructions));
  if (results.memory.length > 0) {
    out.push('\nMemory with idle 2025-wire sessions (RSS)');
    const rows = [['server', 'sessions', 'RSS before MiB', 'RSS after MiB', 'KiB/session']];
    for (const m of results.memory) {
      rows.push([
        m.label,
        m.status === 'ok' ? String(m.sessions) : 'n/a',
        fmt(m.rssBeforeKiB === undefined ? undefined : m.rssBeforeKiB / 1024, 1),
        fmt(m.rssAfterKiB === undefined ? undefined : m.rssAfterKiB / 1024, 1),
        fmt(m.perSessionKiB, 2),
      ]);
    }
    out.push(table(rows));
    for (const m of results.memory) if (m.error !== undefined) out.push(`  ${m.label}: ${m.error}`);
  }
  if (results.startup.length > 0) {
    out.push('\nStart-up over stdio: spawn to the first answered request (initialize), median');
    const rows = [['server', 'ms']];
    for (const s of results.startup) rows.push([s.label, fmt(s.medianMs, 0)]);
    out.push(table(rows));
    for (const s of results.startup) if (s.error !== undefined) out.push(`  ${s.label}: ${s.error}`);
  }
  return out.join('\n');
}

/** The instruction figures and their ratios against issue 51's "within 15%". */
function formatInstructions(i: InstructionResults): string {
  const out = [
    `\nInstructions per request (callgrind, main thread without GC, ${i.requests} requests after ${i.warmup} warm-up)`,
  ];
  if (i.skipped !== undefined) return [...out, `  ${i.skipped}`].join('\n');
  const rows = [['server', 'instructions/req', 'other threads/req']];
  for (const f of i.figures)
    rows.push([f.server, fmt(f.perRequest ?? undefined), fmt(f.otherThreadsPerRequest ?? undefined)]);
  out.push(table(rows));
  for (const f of i.figures) if (f.error !== undefined) out.push(`  ${f.server}: ${f.error}`);
  const ratioRows = [['ratio', 'instructions', 'target', 'verdict']];
  for (const r of i.ratios) {
    const verdict = r.met === null ? (r.value === null ? 'not counted' : 'info') : r.met ? 'met' : 'MISSED';
    ratioRows.push([r.name, fmt(r.value ?? undefined, 3), r.limit === null ? '-' : `<= ${r.limit}`, verdict]);
  }
  out.push(table(ratioRows));
  return out.join('\n');
}
