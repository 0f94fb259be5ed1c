/**
 * What `check` and `test` share after the run: verdicts as JUnit cases, the baseline applied,
 * the closing count line and the exit code.
 *
 * Exit codes: 0 nothing failed (warnings and not-run checks allowed); 1 a check failed that
 * the baseline does not expect, or the baseline lists checks that now pass; 2 a usage mistake
 * (an unreadable baseline included); 3 nothing could be judged (the target could not be
 * reached, or refused the credentials).
 */

import type { ConformanceCheck } from '../conformance/recorder.ts';
import type { LiveVerdict } from '../live/verdict.ts';
import { type Baseline, type BaselineOutcome, baselined, formatBaseline, judgeBaseline } from './baseline.ts';
import type { JUnitCase } from './junit-report.ts';

export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3 } as const;

export function checkCase(c: ConformanceCheck, baseline?: Baseline): JUnitCase {
  const expected = c.status === 'fail' && baselined(baseline, { id: c.id, status: c.status });
  return {
    classname: c.id,
    name: `${c.id}: ${c.title}`,
    // An expected failure is reported, not failed: CI stays green on known gaps.
    status: expected ? 'warn' : c.status,
    level: c.level,
    ...(c.reason !== undefined
      ? { reason: expected ? `expected failure (baseline): ${c.reason}` : c.reason }
      : {}),
    fix: c.fix,
    source: c.source,
    spec: c.spec,
  };
}

export function verdictCase(v: LiveVerdict, baseline?: Baseline): JUnitCase {
  const expected =
    v.status === 'fail' && baselined(baseline, { id: v.check, name: v.name, status: v.status });
  return {
    classname: v.check,
    name: v.name,
    status: expected ? 'warn' : v.status,
    level: v.level,
    ...(v.reason !== undefined
      ? { reason: expected ? `expected failure (baseline): ${v.reason}` : v.reason }
      : {}),
    fix: v.fix,
    source: v.source,
    spec: v.spec,
    durationMs: v.durationMs,
    notes: v.notes,
  };
}

export interface Tally {
  passed: number;
  failed: number;
  warnings: number;
  notRun: number;
}

export function tally(statuses: readonly { status: string }[]): Tally {
  const n = (s: string) => statuses.filter((x) => x.status === s).length;
  return { passed: n('pass'), failed: n('fail'), warnings: n('warn'), notRun: n('not-run') };
}

/** `N passed, N failed, N warnings, N not run`. */
export function closingLine(t: Tally): string {
  return `${t.passed} passed, ${t.failed} failed, ${t.warnings} warnings, ${t.notRun} not run`;
}

export interface Outcome {
  code: number;
  /** Printed after the run: the baseline lines (if any) and the closing count line. */
  text: string;
  baseline?: BaselineOutcome;
}

/**
 * The exit code and closing text. `subjects` are the verdicts as the baseline sees them;
 * `unreachable` says that nothing could be judged.
 */
export function outcome(
  subjects: readonly { id: string; name?: string; status: ConformanceCheck['status'] }[],
  options: { baseline?: Baseline; unreachable?: boolean },
): Outcome {
  const lines: string[] = [];
  let judged: BaselineOutcome | undefined;
  let failing = subjects.filter((s) => s.status === 'fail');
  if (options.baseline !== undefined) {
    judged = judgeBaseline(options.baseline, subjects);
    const b = options.baseline;
    failing = failing.filter((s) => !baselined(b, s));
    lines.push(formatBaseline(b, judged));
  }
  const counts = tally(subjects);
  const expected = judged
    ? subjects.filter((s) => s.status === 'fail' && baselined(options.baseline, s)).length
    : 0;
  lines.push(
    `${closingLine({ ...counts, failed: counts.failed - expected })}${expected > 0 ? ` (${expected} expected failures)` : ''}`,
  );
  const code = options.unreachable
    ? EXIT.unreachable
    : failing.length > 0 || (judged?.stale.length ?? 0) > 0
      ? EXIT.failed
      : EXIT.ok;
  return { code, text: lines.join('\n'), ...(judged ? { baseline: judged } : {}) };
}
