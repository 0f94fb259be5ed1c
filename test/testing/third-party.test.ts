/**
 * Servers no one here wrote, end to end: the official `server-everything` and
 * `server-filesystem` packages over stdio through `check` and `test`. The commands must finish
 * (exit 0 or 1) with a parsable report; the findings asserted here are the ones docs/testing.md
 * records. Everything stays local: stdio only, GZIP_ALLOWED_DOMAINS=127.0.0.1, and a short
 * per-call timeout ends the long-running tools.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ConformanceReport } from '../../src/testing/conformance-report.ts';
import { REPO_ROOT, runCli } from './helpers/fixtures.ts';

const EVERYTHING = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const FAST_FLAGS = ['--request-timeout', '2', '--call-timeout', '5'];
/** What both official SDK v1 servers get wrong (docs/testing.md, "Findings"). */
const SDK_V1_FINDINGS = ['jsonrpc.invalid-request', 'lifecycle.pre-initialize', 'tools.unknown-tool'];

function tapSummary(stdout: string): { tests: number; fail: number; failed: string[] } {
  const count = (name: string) =>
    Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(stdout)?.[1] ?? Number.NaN);
  const failed = [...stdout.matchAll(/^\s*not ok \d+ - (test_\S+)/gm)].map((m) => m[1] as string);
  return { tests: count('tests'), fail: count('fail'), failed };
}

describe('official servers over stdio', { concurrency: 2 }, () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mcp-kit-third-party-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const everything = ['--', process.execPath, EVERYTHING, 'stdio'];
  const everythingEnv = { GZIP_ALLOWED_DOMAINS: '127.0.0.1' };

  test('server-everything: check completes with a parsable report', async () => {
    const r = await runCli(['check', '--json', ...FAST_FLAGS, ...everything], { env: everythingEnv });
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const report = JSON.parse(r.stdout) as ConformanceReport;
    assert.equal(report.serverInfo?.name, 'mcp-servers/everything');
    assert.deepEqual(
      report.checks
        .filter((c) => c.status === 'fail')
        .map((c) => c.id)
        .sort(),
      SDK_V1_FINDINGS,
    );
  });

  test('server-everything: test completes, long-running tools ended by --call-timeout', async () => {
    const r = await runCli(
      ['test', '--reporter', 'tap', '--concurrency', '8', ...FAST_FLAGS, ...everything],
      {
        env: everythingEnv,
      },
    );
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const tap = tapSummary(r.stdout);
    assert.ok(tap.tests > 50, r.stdout.slice(-500));
    assert.equal(tap.fail, tap.failed.length);
    for (const name of [
      'test_unknown_tool',
      'test_invalid_request',
      'test_trigger-long-running-operation_schema_0',
    ]) {
      assert.ok(tap.failed.includes(name), `${name} should fail; failed: ${tap.failed.join(', ')}`);
    }
    assert.match(r.stdout, /# TODO warning: .*idempotentHint/);
  });

  const filesystem = () => ['--', process.execPath, FILESYSTEM, dir];

  test('server-filesystem: check completes with a parsable report', async () => {
    const r = await runCli(['check', '--json', ...FAST_FLAGS, ...filesystem()], { cwd: dir });
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const report = JSON.parse(r.stdout) as ConformanceReport;
    assert.equal(report.serverInfo?.name, 'secure-filesystem-server');
    assert.deepEqual(
      report.checks
        .filter((c) => c.status === 'fail')
        .map((c) => c.id)
        .sort(),
      SDK_V1_FINDINGS,
    );
  });

  test('server-filesystem: test completes; its inputs lack descriptions', async () => {
    const r = await runCli(
      ['test', '--reporter', 'tap', '--concurrency', '8', ...FAST_FLAGS, ...filesystem()],
      { cwd: dir },
    );
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const tap = tapSummary(r.stdout);
    assert.ok(tap.tests > 50);
    assert.ok(
      tap.failed.includes('test_read_text_file_input_schema_field_descriptions'),
      tap.failed.join(', '),
    );
    assert.ok(
      tap.failed.every((n) =>
        /_input_schema_field_descriptions$|^test_(unknown_tool|invalid_request)$/.test(n),
      ),
      tap.failed.join(', '),
    );
  });
});
