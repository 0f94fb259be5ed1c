/**
 * What the two fuzz targets (a spawned stdio server, a spawned HTTP server) share: the
 * server's settings, the limits the generators aim at, the oracle's options, the scan of the
 * server's log for uncaught errors, and how a case is printed in a report.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type fc from 'fast-check';
import type { GeneratorLimits, Payload } from './generators.ts';
import { payloadBytes } from './generators.ts';
import { isObject, type OracleOptions } from './oracle.ts';

export const LIMITS: GeneratorLimits = { maxBodyBytes: 262_144, maxBatch: 20 };
/** The nesting limit the oracle assumes (MCP_MAX_JSON_DEPTH's default). */
export const DEPTH_LIMIT = 64;
export const ORACLE: Omit<OracleOptions, 'batches'> = { maxBatch: LIMITS.maxBatch, depthLimit: DEPTH_LIMIT };
/** Longest wait for an answer the server owes. */
export const ANSWER_TIMEOUT_MS = 10_000;

export interface TargetStats {
  /** Payloads sent (a POST, or a write of one or more lines). */
  payloads: number;
  /** JSON-RPC answers received. */
  answers: number;
  /** Answers with -32603 (the server hit something it did not expect; kept as a warning). */
  internalErrors: number;
  /** Times the server had to be started again because it had exited. */
  restarts: number;
  /** Answers by outcome: `result`, or the error code. */
  readonly outcomes: Record<string, number>;
  /** Error-level lines (pino level 50 and up) of the server's log, by message. */
  readonly logErrors: Record<string, number>;
  /** Known defects seen, by KNOWN_DEFECTS key: counted and printed, not failed. */
  readonly knownDefects: Record<string, number>;
}

export const newStats = (): TargetStats => ({
  payloads: 0,
  answers: 0,
  internalErrors: 0,
  restarts: 0,
  outcomes: {},
  logErrors: {},
  knownDefects: {},
});

/**
 * Defects this suite finds that are reported and not fixed yet. Each is counted and printed
 * rather than failed, so `npm test` keeps guarding everything else; delete an entry once the
 * defect is fixed, and the suite fails on it again.
 */
export const KNOWN_DEFECTS = {} as const satisfies Record<string, string>;

/** Counts one answer (a response object) in the stats. */
export function countAnswer(stats: TargetStats, answer: unknown): void {
  stats.answers++;
  const error = isObject(answer) ? answer.error : undefined;
  const outcome = isObject(error) ? String(error.code) : 'result';
  stats.outcomes[outcome] = (stats.outcomes[outcome] ?? 0) + 1;
  if (outcome === '-32603') stats.internalErrors++;
}

export function sawKnownDefect(stats: TargetStats, key: keyof typeof KNOWN_DEFECTS): void {
  stats.knownDefects[key] = (stats.knownDefects[key] ?? 0) + 1;
}

export interface FuzzTarget<C> {
  readonly transport: 'http' | 'stdio';
  /** One run's worth of cases. */
  readonly runArb: fc.Arbitrary<C[]>;
  /** Sends one run's cases and waits for what is owed; resolves with every problem seen. */
  exchange(cases: readonly C[]): Promise<string[]>;
  /** A case as sent on the wire, for a report. */
  describe(c: C): string;
  /** Ends the session: checks the server is alive, stops it, checks it stopped cleanly. */
  finish(): Promise<string[]>;
  readonly stats: TargetStats;
}

/** The server's environment: both plugins (progress and logging tools), a read-only sandbox. */
export function fuzzEnv(root: string): Record<string, string> {
  return {
    MCP_PLUGINS: 'filesystem,conformance',
    MCP_FILESYSTEM_ROOT: root,
    MCP_FILESYSTEM_READ_ONLY: 'true',
    MCP_MAX_BODY_BYTES: String(LIMITS.maxBodyBytes),
    MCP_MAX_BATCH: String(LIMITS.maxBatch),
    MCP_TOOL_TIMEOUT_MS: '5000',
    // A stray request for client input fails fast instead of holding its answer for minutes.
    MCP_INPUT_TIMEOUT_MS: '2000',
    MCP_LOG_LEVEL: 'warn',
    MCP_LOG_FORMAT: 'json',
  };
}

/** A sandbox root with a couple of files, removed by the returned function. */
export async function makeRoot(): Promise<{ root: string; remove: () => Promise<void> }> {
  const root = await mkdtemp(path.join(tmpdir(), 'mcp-fuzz-'));
  await writeFile(path.join(root, 'a.txt'), 'alpha\n');
  await writeFile(path.join(root, 'b.md'), '# beta\n');
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}

/**
 * Reads the server's log (pino JSON on stderr) from `from` on: a fatal line, or any line about
 * an uncaught exception or unhandled rejection, is a problem even when the process survived it.
 */
export function scanLog(
  stderr: string,
  from: number,
  stats: TargetStats,
): { problems: string[]; next: number } {
  const end = stderr.lastIndexOf('\n') + 1;
  const problems: string[] = [];
  if (end <= from) return { problems, next: from };
  for (const line of stderr.slice(from, end).split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry: { level?: unknown; msg?: unknown };
    try {
      entry = JSON.parse(line) as { level?: unknown; msg?: unknown };
    } catch {
      continue;
    }
    const level = typeof entry.level === 'number' ? entry.level : 0;
    if (level >= 50) {
      const msg = clip(String(entry.msg), 120);
      stats.logErrors[msg] = (stats.logErrors[msg] ?? 0) + 1;
    }
    if (level >= 60 || (level >= 50 && /uncaught|unhandled/i.test(String(entry.msg)))) {
      problems.push(`the server logged: ${clip(line, 400)}`);
    }
  }
  return { problems, next: end };
}

export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 20) / 2);
  return `${text.slice(0, half)}…(${text.length} chars)…${text.slice(-half)}`;
}

/** A payload as text for a report (bytes that are not UTF-8 in hex). */
export function describePayload(p: Payload, max = 600): string {
  if (p.t === 'bytes') return `bytes ${p.hex}`;
  return JSON.stringify(clip(payloadBytes(p).toString('utf8'), max));
}

/** The last lines of the server's log, for a report about a crash. */
export function tail(stderr: string, lines = 12): string {
  return stderr
    .trimEnd()
    .split('\n')
    .slice(-lines)
    .map((l) => `    | ${clip(l, 300)}`)
    .join('\n');
}
