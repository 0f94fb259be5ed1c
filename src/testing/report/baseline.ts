/**
 * Expected failures (`--baseline FILE`), in the format of the official conformance suite's
 * `--expected-failures` file, so a team can adopt the kit on a server with known gaps and
 * still have CI catch regressions:
 *
 * ```yaml
 * server:
 *   - tools.unknown-tool               # a check of `mcp-toolkit check`
 *   - test_invalid_request             # a generated test of `mcp-toolkit test`
 *   - test.field-descriptions          # a whole family of generated tests
 *   - test.schema-call:test_add_schema_3
 * ```
 *
 * A listed check that fails is expected (the run does not fail for it); one that now passes
 * is stale (the run fails: remove the entry); one not run or absent is tolerated. The
 * `client:` list of the official format is accepted and ignored (the kit tests servers).
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import type { CheckStatus } from '../conformance/recorder.ts';

export interface Baseline {
  file: string;
  entries: readonly string[];
}

/** A baseline file that cannot be used; the commands print it and exit 2. */
export class BaselineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BaselineError';
  }
}

export async function loadBaseline(file: string): Promise<Baseline> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new BaselineError(`cannot read the baseline ${file}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new BaselineError(`${file} is not YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return { file, entries: [] };
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new BaselineError(
      `${file}: expected a mapping with a "server" list, e.g. server: [tools.unknown-tool]`,
    );
  }
  const server = (doc as Record<string, unknown>).server ?? [];
  if (!Array.isArray(server)) throw new BaselineError(`${file}: "server" must be a list of check ids`);
  const entries: string[] = [];
  for (const [i, e] of server.entries()) {
    if (typeof e !== 'string' || e.trim() === '') {
      // `- scenario: check` parses as a mapping: the official suite rejects it too.
      const hint =
        typeof e === 'object' && e !== null ? ' (write "- a:b" without a space after the colon)' : '';
      throw new BaselineError(`${file}: server[${i}] is not a check id: ${JSON.stringify(e)}${hint}`);
    }
    entries.push(e.trim());
  }
  return { file, entries };
}

/** What a baseline is matched against: a check (`id`), or a generated test (`name` in family `id`). */
export interface BaselineSubject {
  id: string;
  name?: string;
  status: CheckStatus;
}

export interface BaselineOutcome {
  /** Failures (and warnings) the baseline expects: not counted against the run. */
  expected: string[];
  /** Entries whose checks now pass: the run fails until they are removed. */
  stale: string[];
}

function keys(s: BaselineSubject): string[] {
  return s.name === undefined ? [s.id] : [s.name, s.id, `${s.id}:${s.name}`];
}

/** Whether an entry names this subject. */
export function baselined(baseline: Baseline | undefined, s: BaselineSubject): boolean {
  if (baseline === undefined) return false;
  const k = keys(s);
  return baseline.entries.some((e) => k.includes(e));
}

export function judgeBaseline(baseline: Baseline, subjects: readonly BaselineSubject[]): BaselineOutcome {
  const expected: string[] = [];
  const stale: string[] = [];
  for (const entry of baseline.entries) {
    const hit = subjects.filter((s) => keys(s).includes(entry));
    const failing = hit.filter((s) => s.status === 'fail' || s.status === 'warn');
    if (failing.length > 0) expected.push(...failing.map((s) => s.name ?? s.id));
    else if (hit.some((s) => s.status === 'pass')) stale.push(entry);
  }
  return { expected: [...new Set(expected)], stale };
}

/** The lines a command prints about its baseline. */
export function formatBaseline(baseline: Baseline, outcome: BaselineOutcome): string {
  const lines = [`Baseline ${baseline.file}: ${outcome.expected.length} expected failures`];
  if (outcome.expected.length > 0) lines[0] += ` (${outcome.expected.join(', ')})`;
  if (outcome.stale.length > 0)
    lines.push(`  stale entries, these now pass: remove them from the baseline: ${outcome.stale.join(', ')}`);
  return lines.join('\n');
}
