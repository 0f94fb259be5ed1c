/**
 * One wording per rule (issue 49): a rule both commands judge (a family of `test` graded by a
 * rule of `check`, `sameAs` in live-catalog.ts) reads the same in both reports. For every such
 * rule a run finds, check's finding and test's findings of the family have the same level, the
 * same status and the same words, item by item: `check` lists every item it found in one
 * finding (`a; b and 2 more`), `test` may split them over its tests (one per call) or probe
 * fewer of them (one wire), so the items of one are among the items of the other.
 */
import assert from 'node:assert/strict';
import type { ConformanceReport } from '../../../src/testing/conformance-report.ts';
import { type FamilyInfo, LIVE_CHECKS, type LiveCheckId } from '../../../src/testing/live-catalog.ts';
import type { LiveVerdict } from '../../../src/testing/live-verdict.ts';

/** The rules of check that a family of test applies, by rule id. */
export const SHARED_RULES: ReadonlyMap<string, LiveCheckId> = new Map(
  (Object.entries(LIVE_CHECKS) as [LiveCheckId, FamilyInfo][])
    .filter(([, info]) => info.rule !== undefined)
    .map(([family, info]) => [info.rule as string, family]),
);

const isFinding = (status: string) => status === 'fail' || status === 'warn';

/** Ids a server hands out per run (a task's UUID) differ between the two runs, not the words. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** A finding's items: `listSome` joins them with "; " (and may end with "and N more"). */
function items(reason: string): string[] {
  return reason
    .replace(UUID, '<id>')
    .replace(/ and \d+ more$/, '')
    .split('; ')
    .map((s) => s.trim());
}

function wordedAlike(a: string, b: string): boolean {
  if (a.replace(UUID, '<id>') === b.replace(UUID, '<id>')) return true;
  const [x, y] = [items(a), items(b)];
  return x.every((i) => y.includes(i)) || y.every((i) => x.includes(i));
}

/**
 * Asserts check's findings of the shared rules read as test's: for each shared rule `check`
 * found, test found it under the family at the same level and status, worded alike. Returns the
 * rules compared (so a corpus can show that it compared every shared rule).
 */
export function assertOneWording(
  report: ConformanceReport,
  verdicts: Iterable<LiveVerdict>,
  label: string,
): string[] {
  const all = [...verdicts];
  const compared: string[] = [];
  for (const c of report.checks) {
    const family = SHARED_RULES.get(c.id);
    if (family === undefined || !isFinding(c.status)) continue;
    const found = all.filter((v) => v.check === family && v.finding && isFinding(v.status));
    assert.ok(
      found.length > 0,
      `${label}: check found ${c.id} (${c.reason}); test has no finding of ${family}: ${JSON.stringify(all.filter((v) => v.check === family))}`,
    );
    for (const v of found) {
      assert.deepEqual(
        [v.level, v.status],
        [c.level, c.status],
        `${label}: ${c.id} is ${c.level} ${c.status} in check, ${v.level} ${v.status} in ${v.name}`,
      );
    }
    // Every item check words is worded alike by some test (test may probe more calls than check).
    const reasons = found.map((v) => v.reason ?? '');
    assert.ok(
      reasons.some((r) => wordedAlike(r, c.reason ?? '')) ||
        items(c.reason ?? '').every((i) => reasons.some((r) => items(r).includes(i))),
      `${label}: ${c.id} is worded apart\n  check: ${c.reason}\n  test:  ${reasons.join('\n         ')}`,
    );
    compared.push(c.id);
  }
  return compared;
}
