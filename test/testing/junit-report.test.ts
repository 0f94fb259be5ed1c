/**
 * The kit's JUnit writer against the Jenkins JUnit schema and a common reader: every status,
 * hostile text, and the schema check itself shown to reject what CI readers refuse.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type JUnitCase, renderJUnit } from '../../src/testing/report/junit-report.ts';
import { junitSchemaErrors, readJUnit } from './helpers/junit-schema.ts';

const base = {
  level: 'MUST',
  fix: 'answer it',
  source: 'Lifecycle §Initialization',
  spec: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization',
} as const;

const cases: JUnitCase[] = [
  { ...base, classname: 'initialize.result', name: 'initialize.result: ok', status: 'pass', durationMs: 12 },
  {
    ...base,
    classname: 'tools.unknown-tool',
    name: 'tools.unknown-tool: <unknown> & "quoted"',
    status: 'fail',
    reason: 'got \u0007 a bell, ]]> and </failure>\nsecond line',
  },
  {
    ...base,
    classname: 'tools.titles',
    name: 'tools.titles',
    status: 'warn',
    level: 'HOUSE',
    reason: 'no title',
  },
  {
    ...base,
    classname: 'tasks.lifecycle',
    name: 'tasks.lifecycle',
    status: 'not-run',
    reason: 'no task tools',
  },
];

test('every status renders valid against jenkins-junit.xsd and reads back with its counts and texts', async () => {
  const xml = renderJUnit(
    { name: 'mcp-toolkit check', target: 'http://127.0.0.1:1/mcp?a=1&b=2' },
    cases,
    new Date(),
  );
  const doc = await readJUnit(xml);
  const suite = doc.testsuite?.[0];
  assert.equal(suite?.name, 'mcp-toolkit check: http://127.0.0.1:1/mcp?a=1&b=2');
  assert.deepEqual([suite?.tests, suite?.failures, suite?.errors, suite?.skipped], [4, 1, 0, 1]);
  const failed = suite?.testcase?.[1];
  assert.equal(failed?.name, 'tools.unknown-tool: <unknown> & "quoted"');
  assert.equal(failed?.failure?.[0]?.message, 'got  a bell, ]]> and </failure>');
  assert.match(failed?.failure?.[0]?.inner ?? '', /\nsecond line\n\[MUST\] fix: answer it\nrule: Lifecycle/);
  assert.match(suite?.testcase?.[2]?.['system-out']?.[0] ?? '', /^WARNING no title\n\[HOUSE\] fix/);
  assert.ok(suite?.testcase?.[3]?.skipped, 'the not-run case reads as skipped');
  assert.match(xml, /<skipped>not run: no task tools<\/skipped>/);
});

test('the schema check rejects what the Jenkins schema does not allow', async () => {
  const xml = renderJUnit({ name: 'mcp-toolkit test', target: 'x' }, cases, new Date());
  const withFile = xml.replace(
    '<testcase name="tasks.lifecycle"',
    '<testcase file="x" name="tasks.lifecycle"',
  );
  assert.match(
    (await junitSchemaErrors(withFile)).join('\n'),
    /attribute 'file': The attribute 'file' is not allowed/,
  );
  const skippedMessage = xml.replace('<skipped>', '<skipped message="m">');
  assert.match((await junitSchemaErrors(skippedMessage)).join('\n'), /'skipped', attribute 'message'/);
});
