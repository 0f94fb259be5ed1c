/** What a round and a server's scenario produce, and how rounds are summarised (medians). */

export interface RoundFigures {
  requests: number;
  durationSec: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Server CPU time (user + system, all threads) per answered request, in microseconds. */
  cpuUsPerReq: number;
  /** Responses that were not a correct answer (non-2xx, wrong body, socket errors, timeouts). */
  failures: number;
  /**
   * Share of the round the server's core spent on the server (CPU time / wall time). Well
   * below 1, the server was not the bottleneck: req/s then understates its capacity.
   */
  serverBusy: number;
  /** The same for the load generator (autocannon, or the stdio driver). */
  loadBusy: number;
}

export interface Summary {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerReq: number;
  serverBusy: number;
  loadBusy: number;
}

export interface ServerResult {
  id: string;
  label: string;
  /** `ok`: every response was right; `failed`: some were wrong; `unavailable`: could not be measured. */
  status: 'ok' | 'failed' | 'unavailable';
  error?: string;
  notes: string[];
  rounds: RoundFigures[];
  /** The processes of the server its rounds ran on, one after the other (HTTP scenarios). */
  processes?: number;
  /** Medians over rounds (absent when nothing was measured). */
  median?: Summary;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarise(rounds: readonly RoundFigures[]): Summary | undefined {
  if (rounds.length === 0) return undefined;
  return {
    rps: median(rounds.map((r) => r.rps)),
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    cpuUsPerReq: median(rounds.map((r) => r.cpuUsPerReq)),
    serverBusy: median(rounds.map((r) => r.serverBusy)),
    loadBusy: median(rounds.map((r) => r.loadBusy)),
  };
}

export function unavailable(id: string, label: string, error: unknown): ServerResult {
  return {
    id,
    label,
    status: 'unavailable',
    error: error instanceof Error ? error.message : String(error),
    notes: [],
    rounds: [],
  };
}

/**
 * Closes a result once its rounds are in: status from failures (or a check already failed,
 * e.g. after the rounds), medians from rounds.
 */
export function finish(result: ServerResult): ServerResult {
  if (result.status === 'unavailable') return result;
  const failures = result.rounds.reduce((n, r) => n + r.failures, 0);
  const summary = summarise(result.rounds);
  const wrong = failures > 0 ? `${failures} responses were not a correct answer` : undefined;
  const error = [result.status === 'failed' ? result.error : undefined, wrong].filter(Boolean).join('; ');
  return {
    ...result,
    status: error !== '' ? 'failed' : 'ok',
    ...(error !== '' ? { error } : {}),
    ...(summary ? { median: summary } : {}),
  };
}

/** The progress line printed after each round. */
/**
 * The order in which servers take their turn in round `i` (0-based): the list rotated by `i`,
 * so that no server always runs first. In experiments with identical servers, the first of
 * each round ran about 10% slower than the rest.
 */
export function roundOrder<T>(items: readonly T[], i: number): T[] {
  if (items.length === 0) return [];
  const k = i % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

export function roundLine(i: number, rounds: number, label: string, f: RoundFigures): string {
  return (
    `  round ${i + 1}/${rounds} ${label.padEnd(32)} ${f.rps.toFixed(0).padStart(6)} req/s` +
    `  p50 ${f.p50Ms.toFixed(3)} ms  p99 ${f.p99Ms.toFixed(3)} ms  ${f.cpuUsPerReq.toFixed(0)} µs CPU/req` +
    `  server ${(f.serverBusy * 100).toFixed(0)}% busy, load ${(f.loadBusy * 100).toFixed(0)}%` +
    (f.failures > 0 ? `  ${f.failures} WRONG` : '')
  );
}
