/**
 * A server that stops mid-run (issue 49, item 3): said once, as the MUST failure
 * `server.stopped` with the last request sent; over HTTP the checks after it are not run, over
 * stdio the kit starts the command again for them. The broken fixture with `crash-on-call`
 * exits (code 70) when get_greeting is called; with `hang-on-call` it stays up and answers
 * nothing from that call on, so only the ping sent after the unanswered call tells the kit it
 * is gone. Each runs in a process of its own (stdio.ts, http.ts).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ConformanceReport, conformanceReport } from '../../src/testing/conformance/report.ts';
import { FIXTURES, PATIENT, type PlanRun, runPlan } from './helpers/fixtures.ts';
import { assertOneWording } from './helpers/one-wording.ts';
import { type HttpServerProcess, startHttpServer } from './helpers/pinned.ts';

const STDIO = { command: process.execPath, args: [path.join(FIXTURES, 'stdio.ts'), 'crash-on-call'] };
const HANG = { command: process.execPath, args: [path.join(FIXTURES, 'stdio.ts'), 'hang-on-call'] };
const OPTIONS = { ...PATIENT, wire: '2025' } as const;
/**
 * A hung server is known only once a request and the ping after it went unanswered, so the kit
 * waits out both: bounds that a server answering at all meets on a loaded machine, and no more.
 */
const HUNG = {
  requestTimeoutMs: 10_000,
  callTimeoutMs: 10_000,
  notificationWaitMs: 100,
  wire: '2025',
} as const;
/** The hung server's finding: the call unanswered, and the ping after it (the server is still up). */
const UNANSWERED =
  /while answering tools\/call \{"name":"get_greeting".*: it answered neither that request \(no answer within 10 s\) nor a ping sent after it \(no answer within 10 s\)/;

/** Each stdio defect's check report and test run, compared by the last test of the file. */
const pairs = new Map<string, { report?: ConformanceReport; run?: PlanRun }>();
const keep = (defect: string, part: { report?: ConformanceReport; run?: PlanRun }) =>
  pairs.set(defect, { ...pairs.get(defect), ...part });

const findings = (report: Awaited<ReturnType<typeof conformanceReport>>) =>
  report.checks.filter((c) => c.status === 'fail' || c.status === 'warn');

// The hung servers are waited out (two 10 s bounds each): every case runs at once, since they
// mostly wait.
describe('a server that stops mid-run', { concurrency: true }, () => {
  test('stdio: one MUST failure with the last request; the command is started again for the rest', async () => {
    const report = await conformanceReport(STDIO, OPTIONS);
    keep('crash-on-call', { report });
    assert.deepEqual(
      findings(report).map((c) => [c.id, c.level, c.status]),
      [['server.stopped', 'MUST', 'fail']],
    );
    const stop = report.checks.find((c) => c.id === 'server.stopped');
    assert.match(stop?.reason ?? '', /while answering tools\/call \{"name":"get_greeting"/);
    assert.match(stop?.reason ?? '', /exited with code 70/);
    assert.match(stop?.reason ?? '', /started it again/);
    // Judged on the new process: the checks after the crash ran.
    assert.equal(report.checks.find((c) => c.id === 'resources.list')?.status, 'pass');
    assert.equal(report.checks.find((c) => c.id === 'prompts.list')?.status, 'pass');
  });

  test('stdio, test: the stop fails one test at MUST; the crashing tool is not called again', async () => {
    const run = await runPlan(STDIO, { ...PATIENT, wire: '2025', concurrency: 1 });
    keep('crash-on-call', { run });
    const failed = [...run.verdicts.values()].filter((v) => v.status === 'fail');
    assert.deepEqual(
      failed.map((v) => [v.name, v.check, v.level]),
      [['test_get_greeting_example_0', 'test.server-stopped', 'MUST']],
    );
    assert.match(
      failed[0]?.reason ?? '',
      /the server stopped while answering tools\/call \{"name":"get_greeting"/,
    );
    assert.match(
      run.skipped.get('test_get_greeting_schema_0') ?? '',
      /a call of get_greeting stopped the server/,
    );
    // Tools other than get_greeting are judged, on a new process.
    assert.equal(run.verdicts.get('test_add_numbers_schema_0')?.status, 'pass');
  });

  test('stdio, a server that stays up and answers nothing: the unanswered ping says it stopped; the command is started again', async () => {
    const report = await conformanceReport(HANG, HUNG);
    keep('hang-on-call', { report });
    assert.deepEqual(
      findings(report).map((c) => [c.id, c.level, c.status]),
      [['server.stopped', 'MUST', 'fail']],
    );
    const stop = report.checks.find((c) => c.id === 'server.stopped');
    assert.match(stop?.reason ?? '', UNANSWERED);
    assert.doesNotMatch(stop?.reason ?? '', /exited/);
    assert.match(stop?.reason ?? '', /started it again/);
    assert.equal(report.checks.find((c) => c.id === 'resources.list')?.status, 'pass');
    assert.equal(report.checks.find((c) => c.id === 'prompts.list')?.status, 'pass');
  });

  test('stdio, test: a hung call fails one test at MUST (not the call timeout warning); the rest run on a new process', async () => {
    const run = await runPlan(HANG, { ...HUNG, concurrency: 1 });
    keep('hang-on-call', { run });
    const found = [...run.verdicts.values()].filter((v) => v.status === 'fail' || v.status === 'warn');
    assert.deepEqual(
      found.map((v) => [v.name, v.check, v.level, v.status]),
      [['test_get_greeting_example_0', 'test.server-stopped', 'MUST', 'fail']],
    );
    assert.match(found[0]?.reason ?? '', UNANSWERED);
    assert.match(
      run.skipped.get('test_get_greeting_schema_0') ?? '',
      /a call of get_greeting stopped the server/,
    );
    assert.equal(run.verdicts.get('test_add_numbers_schema_0')?.status, 'pass');
  });

  describe('over HTTP', () => {
    let http: HttpServerProcess;
    before(async () => {
      http = await startHttpServer(process.execPath, [path.join(FIXTURES, 'http.ts'), 'crash-on-call']);
    });
    after(() => http.stop());

    test('check: one MUST failure; every check after it is not run, none fails for it', async () => {
      const checked = conformanceReport(http.url, OPTIONS);
      const [report] = await Promise.all([checked, sameWordsOverHttp('crash-on-call', checked, OPTIONS)]);
      assert.deepEqual(
        findings(report).map((c) => c.id),
        ['server.stopped'],
      );
      const stop = report.checks.find((c) => c.id === 'server.stopped');
      assert.match(stop?.reason ?? '', /while answering tools\/call \{"name":"get_greeting"/);
      for (const id of ['resources.list', 'http.origin', 'http.batch'])
        assert.match(
          report.checks.find((c) => c.id === id)?.reason ?? '',
          /the server stopped/,
          `${id} is not run`,
        );
    });
  });

  describe('over HTTP, a server that stays up and answers nothing', () => {
    let http: HttpServerProcess;
    before(async () => {
      http = await startHttpServer(process.execPath, [path.join(FIXTURES, 'http.ts'), 'hang-on-call']);
    });
    after(() => http.stop());

    test('check: the call and the ping after it unanswered: one MUST failure, the rest not run', async () => {
      const checked = conformanceReport(http.url, HUNG);
      const [report] = await Promise.all([checked, sameWordsOverHttp('hang-on-call', checked, HUNG)]);
      assert.deepEqual(
        findings(report).map((c) => [c.id, c.level, c.status]),
        [['server.stopped', 'MUST', 'fail']],
      );
      assert.match(report.checks.find((c) => c.id === 'server.stopped')?.reason ?? '', UNANSWERED);
      for (const id of ['resources.list', 'http.origin', 'http.batch'])
        assert.match(
          report.checks.find((c) => c.id === id)?.reason ?? '',
          /the server stopped/,
          `${id} is not run`,
        );
    });
  });
});

/**
 * test against a server of its own (check's is gone or hung), run while check runs: the stop
 * fails one test at MUST, the tests after it are not run (an HTTP server is not started
 * again), and check and test word the stop alike.
 */
async function sameWordsOverHttp(
  defect: 'crash-on-call' | 'hang-on-call',
  checked: Promise<ConformanceReport>,
  options: typeof OPTIONS | typeof HUNG,
): Promise<void> {
  const fresh = await startHttpServer(process.execPath, [path.join(FIXTURES, 'http.ts'), defect]);
  try {
    const run = await runPlan(fresh.url, { ...options, concurrency: 1 });
    const found = [...run.verdicts.values()].filter((v) => v.status === 'fail' || v.status === 'warn');
    assert.deepEqual(
      found.map((v) => [v.check, v.level, v.status]),
      [['test.server-stopped', 'MUST', 'fail']],
    );
    assert.match(run.skipped.get('test_add_numbers_schema_0') ?? '', /the server stopped/);
    assert.deepEqual(assertOneWording(await checked, run.verdicts.values(), `${defect} over HTTP`), [
      'server.stopped',
    ]);
  } finally {
    await fresh.stop();
  }
}

// After the suite (top-level tests run one after another): check and test word server.stopped alike.
test('check and test word the stop alike, over stdio (over HTTP: each HTTP test above)', () => {
  for (const [defect, { report, run }] of pairs) {
    if (report === undefined || run === undefined) continue;
    assert.deepEqual(assertOneWording(report, run.verdicts.values(), defect), ['server.stopped']);
  }
});
