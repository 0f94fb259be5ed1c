/**
 * The kit over real transports: a spawned stdio process (every stdout byte inspected, a dying
 * process reported), streamable HTTP (the SDK v1 fixture: SSE replies, sessions, the
 * session-based pre-initialize check, the deprecated /sse warning), and auth headers.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { conformanceReport } from '../../src/testing/conformance/report.ts';
import { type HttpFixture, startHttpFixture } from '../fixtures/broken-servers/http-server.ts';
import { FAST, FIXTURES, PATIENT, runPlan } from './helpers/fixtures.ts';
import { assertOneWording } from './helpers/one-wording.ts';

const stdioFixture = (defect: string) => ({
  command: process.execPath,
  args: [path.join(FIXTURES, 'stdio.ts'), defect],
});

describe('a spawned stdio server', { concurrency: 3 }, () => {
  test('the good fixture passes check and test, on both wires', async () => {
    const report = await conformanceReport(stdioFixture('none'), PATIENT);
    assert.equal(report.transport, 'stdio');
    assert.deepEqual(report.wires, ['2025', '2026']);
    assert.deepEqual(
      report.checks.filter((c) => c.status === 'fail'),
      [],
    );
    assert.ok(report.checks.some((c) => c.id === 'stdio.stdout' && c.status === 'pass'));
    const run = await runPlan(stdioFixture('none'));
    assert.deepEqual(Object.fromEntries(run.failed), {});
    assert.ok(run.names.includes('test_mcp_tools[stdio]'));
  });

  test('a banner on stdout fails the stdout checks only', async () => {
    const report = await conformanceReport(stdioFixture('stdout-junk'), PATIENT);
    assert.deepEqual(
      report.checks.filter((c) => c.status === 'fail').map((c) => c.id),
      ['stdio.stdout'],
    );
    assert.match(report.checks.find((c) => c.id === 'stdio.stdout')?.reason ?? '', /broken-fixture ready/);
  });

  test('a process that dies at start is reported with its stderr, and test reports no endpoint', async () => {
    const dying = {
      command: process.execPath,
      args: ['-e', 'console.error("cannot start: no config"); process.exit(3)'],
    };
    const report = await conformanceReport(dying, FAST);
    assert.equal(report.ok, false);
    assert.match(
      report.checks.find((c) => c.status === 'fail')?.reason ?? '',
      /exited with code 3[\s\S]*no config/,
    );
    const run = await runPlan(dying);
    assert.deepEqual(run.names, ['test_mcp_tools[NO ENDPOINT FOUND]']);
    assert.match(run.failed.get('test_mcp_tools[NO ENDPOINT FOUND]') ?? '', /exited with code 3/);
    assert.deepEqual(assertOneWording(report, run.verdicts.values(), 'dying'), ['connection']);
  });
});

describe('a streamable HTTP server (SDK v1 transport)', () => {
  let good: HttpFixture;
  let sse: HttpFixture;
  before(async () => {
    good = await startHttpFixture('none');
    sse = await startHttpFixture('sse-endpoint');
  });
  after(async () => {
    await good.close();
    await sse.close();
  });

  test('the good fixture passes check, with the session-based pre-initialize check', async () => {
    const report = await conformanceReport(good.url, PATIENT);
    assert.equal(report.transport, 'http');
    // The SDK v1 HTTP transport refuses a 2026 request without a session: auto falls back to 2025.
    assert.deepEqual(report.wires, ['2025']);
    assert.deepEqual(
      report.checks.filter((c) => c.status === 'fail'),
      [],
    );
    assert.equal(report.checks.find((c) => c.id === 'lifecycle.pre-initialize')?.status, 'pass');
  });

  test('a bare origin finds /mcp, and the generated tests pass over SSE replies', async () => {
    const origin = new URL(good.url).origin;
    const run = await runPlan(origin, { strict: true });
    assert.deepEqual(Object.fromEntries(run.failed), {});
    assert.ok(run.names.includes('test_mcp_tools[POST /mcp]'));
    assert.ok(!run.names.some((n) => n.startsWith('test_deprecated_endpoint')));
  });

  test('a deprecated GET /sse endpoint is a warning, not a pass and not a failure', async () => {
    const run = await runPlan(sse.url);
    assert.deepEqual(Object.fromEntries(run.failed), {});
    assert.deepEqual([...run.warned], ['test_deprecated_endpoint[GET /sse]']);
  });

  test('an unreachable URL is one failing test and a failed report', async () => {
    const closed = await startHttpFixture('none');
    const url = closed.url;
    await closed.close();
    const run = await runPlan(url);
    assert.match(run.failed.get('test_mcp_tools[NO ENDPOINT FOUND]') ?? '', /cannot reach/);
    const report = await conformanceReport(url, FAST);
    assert.equal(report.ok, false);
    // Nothing answered: one failure that says why, everything else "not run", nothing passed.
    assert.deepEqual([report.connected, report.passed, report.failed, report.warnings], [false, 0, 1, 0]);
    assert.match(report.checks.find((c) => c.id === 'connection')?.reason ?? '', /cannot reach/);
    assert.ok(report.notRun > 10);
    assert.ok(report.checks.every((c) => c.id === 'connection' || c.status === 'not-run'));
    assert.deepEqual(assertOneWording(report, run.verdicts.values(), 'unreachable'), ['connection']);
  });
});
