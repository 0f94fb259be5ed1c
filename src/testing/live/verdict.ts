/**
 * One generated test run to its verdict: pass, fail (a MUST rule, or any rule under
 * `--strict`), warn (a SHOULD or house rule), or not run (skipped, or nothing to judge),
 * with the level, the rule's address for the negotiated revision and a one-line fix. The
 * node test-runner registration, the JUnit writer and the kit's own tests all go through here.
 */
import { DEFAULT_REVISION, type Level, sourceUrl } from '../conformance/check-catalog.ts';
import type { CheckStatus } from '../conformance/recorder.ts';
import { LiveTestFailure } from './calls.ts';
import { LIVE_CHECKS, type LiveCheckId } from './catalog.ts';
import type { LiveCase } from './plan.ts';

export interface LiveVerdict {
  /** The generated test's name, e.g. `test_add_schema_3`. */
  name: string;
  /** Its family, e.g. `test.schema-call`. */
  check: string;
  level: Level;
  status: CheckStatus;
  /** Why it failed, warned or did not run. */
  reason?: string;
  /** Diagnostics: what was sent, what came back. */
  notes: string[];
  fix: string;
  source: string;
  spec: string;
  durationMs: number;
  /** The case threw a finding (a broken rule), as opposed to passing with warnings of its own. */
  finding: boolean;
}

function familyInfo(check: LiveCheckId, revision: string | undefined) {
  const info = LIVE_CHECKS[check];
  return {
    check,
    level: info.level as Level,
    fix: info.fix,
    source: info.source.label,
    spec: sourceUrl(info.source, revision ?? DEFAULT_REVISION),
  };
}

/** Runs one case and says what it found; never throws for a finding. */
export async function runCase(
  c: LiveCase,
  options: { strict?: boolean; revision?: string } = {},
): Promise<LiveVerdict> {
  const base = { name: c.name, ...familyInfo(c.check, options.revision), finding: false };
  if (c.skip !== undefined) return { ...base, status: 'not-run', reason: c.skip, notes: [], durationMs: 0 };
  const started = performance.now();
  const took = () => performance.now() - started;
  try {
    const out = await c.run();
    const notes = out.notes ?? [];
    if (out.skipped !== undefined)
      return { ...base, status: 'not-run', reason: out.skipped, notes, durationMs: took() };
    if (out.warnings && out.warnings.length > 0) {
      const reason = out.warnings.join('; ');
      return { ...base, status: options.strict ? 'fail' : 'warn', reason, notes, durationMs: took() };
    }
    return { ...base, status: 'pass', notes, durationMs: took() };
  } catch (err) {
    // A finding may belong to another family than the case's (a task rule broken mid-call).
    const family = err instanceof LiveTestFailure ? err.check : undefined;
    const own = family === undefined ? base : { ...base, ...familyInfo(family, options.revision) };
    const level = (err instanceof LiveTestFailure ? err.level : undefined) ?? own.level;
    const reason = err instanceof LiveTestFailure ? err.message : `the test itself broke: ${String(err)}`;
    const warning = err instanceof LiveTestFailure && err.warning;
    const status = options.strict || (level === 'MUST' && !warning) ? 'fail' : 'warn';
    const fix = (err instanceof LiveTestFailure ? err.fix : undefined) ?? own.fix;
    const notes = err instanceof LiveTestFailure ? [...err.notes] : [];
    return { ...own, level, status, reason, fix, notes, durationMs: took(), finding: true };
  }
}

/** The failure text node's reporters print: the finding, its level, the fix and the rule. */
export function verdictText(v: LiveVerdict): string {
  return `${v.reason ?? 'failed'}\n[${v.level}] fix: ${v.fix}\nrule: ${v.source}: ${v.spec}`;
}
