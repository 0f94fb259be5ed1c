/**
 * One wording per rule (issue 49): a rule both commands judge (a family of `test` graded by a
 * rule of `check`, `sameAs` in live/catalog.ts) reads the same in both reports. For every such
 * rule a run finds, check's finding and test's findings of the family have the same level, the
 * same status and the same words, item by item: `check` lists every item it found in one
 * finding (`a; b and 2 more`), `test` may split them over its tests (one per call) or probe
 * fewer of them (one wire), so the items of one are among the items of the other. Both ways:
 * a finding of test under a shared rule that check judged is check's finding too.
 */
import assert from 'node:assert/strict';
import type { ConformanceReport } from '../../../src/testing/conformance/report.ts';
import { type FamilyInfo, LIVE_CHECKS, type LiveCheckId } from '../../../src/testing/live/catalog.ts';

/** The rules of check that a family of test applies, by rule id. */
export const SHARED_RULES: ReadonlyMap<string, LiveCheckId> = new Map(
  (Object.entries(LIVE_CHECKS) as [LiveCheckId, FamilyInfo][])
    .filter(([, info]) => info.rule !== undefined)
    .map(([family, info]) => [info.rule as string, family]),
);

const isFinding = (status: string) => status === 'fail' || status === 'warn';

/** One finding of test as both a run in process (LiveVerdict) and a JUnit report carry it. */
export interface TestFinding {
  name: string;
  check: string;
  level: string;
  status: string;
  reason?: string;
  /** False for a case that passed with warnings of its own (not a broken rule); JUnit has no such flag. */
  finding?: boolean;
}

/**
 * What differs between two runs and not in the words: a task's UUID, the request ids each
 * command numbers on its own (`id 3 has jsonrpc undefined`, `sent id 4, got "4"`), the port of
 * a server started for each command, and which error the system gives a socket to a process
 * that is dying (refused or reset, by how far it got).
 */
function normalised(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    .replace(/\b(id|got) ("?)-?\d+\2/g, '$1 $2<n>$2')
    .replace(/\/\/(127\.0\.0\.1|\[::1\]|localhost):\d+\//g, '//$1:<port>/')
    .replace(/\b(ECONNREFUSED|ECONNRESET|EPIPE)\b/g, '<socket error>');
}

/**
 * A finding's items: `listSome` joins them with "; " on the first line (which may end with "and
 * N more"); lines after it (`affects: …`) are said of every item, so each item carries them.
 */
function items(reason: string): string[] {
  const [head = '', ...rest] = normalised(reason).split('\n');
  const tail = rest.length > 0 ? `\n${rest.join('\n')}` : '';
  return head
    .replace(/ and \d+ more$/, '')
    .split('; ')
    .map((s) => `${s.trim()}${tail}`);
}

/**
 * The rules check judges on one wire only (conformance/protocol.ts checkErrorCodes, which says
 * so in its words: `(2025 wire)`): a test run on the other wire sends the same probe on another
 * wire, so neither speaks for the other.
 */
const CHECK_WIRE: Readonly<Record<string, '2025' | '2026'>> = {
  'jsonrpc.invalid-request': '2025',
  'jsonrpc.method-not-found': '2025',
};

/** The call rules: check calls only the read-only tools with an outputSchema, and names them. */
const CALL_RULES = new Set(['tools.execution-error', 'tools.schema-accepted']);
const calledByCheck = (passReason: string) =>
  /\(([^:]*): the read-only tools with an outputSchema\)$/.exec(passReason)?.[1]?.split(', ') ?? [];

/** Each tool call's arguments (`describeCall`: `name({...}): ` at an item's start) left out. */
const anyArguments = (reason: string) =>
  reason.replace(/(^|; )([\w.-]+)\(\{(?:[^)]|\)(?!: ))*\): /g, '$1$2(…): ');

/** check listed only some of its items (`a; b and 3 more`): the rest cannot be compared. */
const truncated = (reason: string) => / and \d+ more$/.test(reason.split('\n')[0] ?? '');

function wordedAlike(a: string, b: string): boolean {
  if (normalised(a) === normalised(b)) return true;
  const [x, y] = [items(a), items(b)];
  return x.every((i) => y.includes(i)) || y.every((i) => x.includes(i));
}

/** The rule of check a family of test applies, if any. */
const ruleOfFamily = (family: string): string | undefined =>
  (LIVE_CHECKS as Record<string, FamilyInfo>)[family]?.rule;

/**
 * Asserts check and test read alike on every rule both judge, both ways: each shared rule
 * check found, test found under the family at the same level and status, worded alike; and
 * each finding of test under a shared family, check (when it judged the rule in its run, not
 * "not run") found at the same level and status, worded alike. Returns the rules compared (so
 * a corpus can show that it compared every shared rule).
 */
export function assertOneWording(
  report: ConformanceReport,
  verdicts: Iterable<TestFinding>,
  label: string,
  options: { testWire?: '2025' | '2026' } = {},
): string[] {
  const all = [...verdicts];
  const compared: string[] = [];
  const otherWire = (rule: string) =>
    options.testWire !== undefined && CHECK_WIRE[rule] !== undefined && CHECK_WIRE[rule] !== options.testWire;
  for (const c of report.checks) {
    const family = SHARED_RULES.get(c.id);
    if (family === undefined || !isFinding(c.status) || otherWire(c.id)) continue;
    const found = all.filter((v) => v.check === family && v.finding !== false && isFinding(v.status));
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
  // The other way: what test found under a shared rule, check says too, in the same words.
  for (const v of all) {
    const rule = ruleOfFamily(v.check);
    if (rule === undefined || v.finding === false || !isFinding(v.status)) continue;
    const c = report.checks.find((x) => x.id === rule);
    if (c === undefined || c.status === 'not-run' || otherWire(rule)) continue;
    // check called other tools than this one: its pass does not speak for this call.
    const tool = /^([\w.-]+)\(/.exec(v.reason ?? '')?.[1] ?? '';
    if (c.status === 'pass' && CALL_RULES.has(rule) && !calledByCheck(c.reason ?? '').includes(tool))
      continue;
    assert.ok(
      isFinding(c.status),
      `${label}: test found ${rule} in ${v.name} (${v.level} ${v.status}: ${v.reason}); check ${c.status === 'pass' ? 'passed it' : c.status}${c.reason ? ` (${c.reason})` : ''}`,
    );
    assert.deepEqual(
      [c.level, c.status],
      [v.level, v.status],
      `${label}: ${rule} is ${v.level} ${v.status} in ${v.name}, ${c.level} ${c.status} in check`,
    );
    // test calls a tool with values check never sends: the same words about another call.
    const mine = items(anyArguments(v.reason ?? ''));
    const theirs = items(anyArguments(c.reason ?? ''));
    assert.ok(
      wordedAlike(v.reason ?? '', c.reason ?? '') ||
        mine.every((i) => theirs.includes(i)) ||
        // check named only some items: test's may be among the ones it counted.
        truncated(c.reason ?? ''),
      `${label}: ${rule} is worded apart\n  test (${v.name}): ${v.reason}\n  check: ${c.reason}`,
    );
    if (!compared.includes(rule)) compared.push(rule);
  }
  return compared;
}
