/**
 * test's verdicts read back from its JUnit report (`--junit FILE`), for a corpus whose `test`
 * runs through the real CLI and prints TAP: each `<testcase>` as a TestFinding (one-wording.ts),
 * its family the classname, its level and reason from the `[LEVEL] fix:` detail junit-report.ts
 * writes under a failure or a warning.
 */
import { readFile } from 'node:fs/promises';
import { readJUnit } from './junit-schema.ts';
import type { TestFinding } from './one-wording.ts';

/** The detail junit-report.ts writes: the reason, then `[LEVEL] fix: …`, then the rule. */
const DETAIL = /^([\s\S]*?)\n\[(MUST|SHOULD|HOUSE)\] fix: /;

/**
 * Every generated test of the report at `file`, and the wire the run spoke (from its
 * protocolVersion property); the report must be valid JUnit.
 */
export async function junitFindings(
  file: string,
): Promise<{ findings: TestFinding[]; wire: '2025' | '2026' | undefined }> {
  const suites = await readJUnit(await readFile(file, 'utf8'));
  const suite = suites.testsuite?.[0];
  const version = suite?.properties?.find((p) => p.name === 'protocolVersion')?.value;
  const wire = version === undefined ? undefined : version.startsWith('2026') ? '2026' : '2025';
  const findings = (suite?.testcase ?? []).map((c): TestFinding => {
    const base = { name: c.name ?? '', check: c.classname ?? '' };
    const failure = c.failure?.[0];
    const warning = (c['system-out'] ?? []).join('\n').match(/^WARNING ([\s\S]*)$/)?.[1];
    const detail = failure?.inner ?? warning;
    const m = detail?.match(DETAIL);
    if (detail === undefined || m === null || m === undefined) {
      return { ...base, level: '', status: c.skipped !== undefined ? 'not-run' : 'pass' };
    }
    return { ...base, level: m[2] as string, status: failure ? 'fail' : 'warn', reason: m[1] as string };
  });
  return { findings, wire };
}
