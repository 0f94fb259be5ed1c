/**
 * One rule table (issue 31): every rule `check` and `test` grade by is in RULES once, with one
 * level, one source and one fix; a family of `test` that applies a rule of `check` is graded
 * by that rule's entry; and docs/testing.md lists each id once, with the same level.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { CHECKS } from '../../src/testing/conformance/check-catalog.ts';
import { conformanceReport } from '../../src/testing/conformance/report.ts';
import {
  type FamilyInfo,
  LIVE_CHECKS,
  type LiveCheckId,
  RULES,
  ruleOf,
} from '../../src/testing/live/catalog.ts';
import { FAST, fixtureStreams, REPO_ROOT, runPlan } from './helpers/fixtures.ts';

const CATALOGS = [
  'conformance/check-catalog',
  'conformance/task-catalog',
  'conformance/transport-catalog',
  'conformance/discovery-catalog',
  'live/catalog',
];
const FAMILIES = Object.entries(LIVE_CHECKS) as [LiveCheckId, FamilyInfo][];
const docLevel = (level: string) => (level === 'HOUSE' ? 'house' : level);

test('each rule id is written once in the catalogues (no spread silently overrides another)', async () => {
  const seen = new Map<string, string[]>();
  for (const name of CATALOGS) {
    const text = await readFile(path.join(REPO_ROOT, `src/testing/${name}.ts`), 'utf8');
    for (const m of text.matchAll(/^ {2}'?([a-z0-9][\w.-]*)'?: (?:\{|sameAs\()/gm)) {
      const id = m[1] as string;
      seen.set(id, [...(seen.get(id) ?? []), name]);
    }
  }
  const twice = [...seen].filter(([, where]) => where.length > 1);
  assert.deepEqual(twice, []);
  const ids = [...Object.keys(CHECKS), ...Object.keys(LIVE_CHECKS)].sort();
  assert.deepEqual([...seen.keys()].sort(), ids);
});

test('every family of test is graded by one rule of the table, with its level, source and fix', () => {
  const shared = new Map<string, string>();
  for (const [family, info] of FAMILIES) {
    const id = ruleOf(family);
    const rule = RULES[id];
    assert.ok(rule, `${family}: its rule ${id} is not in RULES`);
    assert.deepEqual(
      [info.level, info.source, info.fix, info.title],
      [rule.level, rule.source, rule.fix, rule.title],
      family,
    );
    if (info.rule !== undefined) {
      assert.ok(info.rule in CHECKS, family);
      // A check rule is applied by at most one family: one rule, one name per command.
      assert.equal(shared.get(info.rule), undefined, `${info.rule} is applied by two families`);
      shared.set(info.rule, family);
      assert.ok(!(family in RULES), `${family} is both a rule and a family of ${info.rule}`);
    } else assert.ok(!(family in CHECKS), family);
  }
  assert.equal(
    Object.keys(RULES).length,
    Object.keys(CHECKS).length + FAMILIES.filter(([, i]) => i.rule === undefined).length,
  );
});

test('both commands report the table: check by its ids and levels, test by its families and their rules', async () => {
  const report = await conformanceReport(await fixtureStreams('none'), FAST);
  for (const c of report.checks) {
    const rule = RULES[c.id];
    assert.ok(rule, `check reported ${c.id}, which is not in RULES`);
    assert.deepEqual([c.level, c.source, c.title], [rule.level, rule.source.label, rule.title], c.id);
  }
  const run = await runPlan(await fixtureStreams('none'), { strict: true });
  assert.ok(run.verdicts.size > 20);
  for (const v of run.verdicts.values()) {
    const rule = RULES[ruleOf(v.check as LiveCheckId)];
    assert.ok(rule, `test reported the family ${v.check}, graded by no rule of RULES`);
    assert.deepEqual([v.level, v.source, v.fix], [rule.level, rule.source.label, rule.fix], v.name);
  }
});

test("docs/testing.md lists every rule and family once, at the table's level, and no other id", async () => {
  const docs = await readFile(path.join(REPO_ROOT, 'docs/testing.md'), 'utf8');
  const listed = new Map<string, string[]>();
  for (const m of docs.matchAll(/^\| `([^`]+)` \| (MUST|SHOULD|house) \|/gm))
    listed.set(m[1] as string, [...(listed.get(m[1] as string) ?? []), m[2] as string]);
  const want = new Map<string, string>([
    ...Object.entries(RULES).map(([id, r]) => [id, docLevel(r.level)] as const),
    ...FAMILIES.map(([family]) => [family, docLevel((RULES[ruleOf(family)] as FamilyInfo).level)] as const),
  ]);
  for (const [id, level] of want) assert.deepEqual(listed.get(id), [level], `docs/testing.md on ${id}`);
  assert.deepEqual(
    [...listed.keys()].filter((id) => !want.has(id)),
    [],
    'docs/testing.md lists ids no rule has',
  );
});
