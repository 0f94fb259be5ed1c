/**
 * Servers no one here wrote, end to end: the official `server-everything` and
 * `server-filesystem` packages over stdio through `check` and `test`, and `server-memory` through
 * `check`; each server's findings are pinned with their level and the spec line behind them. The commands must finish
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
const MEMORY = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const FAST_FLAGS = ['--request-timeout', '2', '--call-timeout', '5'];

/**
 * A finding pinned on a public server: its check, level and status, and for a MUST or SHOULD
 * the line of the specification that makes it true (`source`, which starts with the section
 * the report names), so a changed verdict fails the test and says what it was held to.
 */
interface Pinned {
  id: string;
  level: 'MUST' | 'SHOULD' | 'HOUSE';
  status: 'fail' | 'warn';
  source?: string;
}

const INVALID_REQUEST: Pinned = {
  id: 'jsonrpc.invalid-request',
  level: 'MUST',
  status: 'fail',
  source:
    'JSON-RPC 2.0 §4.2, §5: "parameters for the rpc call MUST be provided as a Structured value" (params: null is no Request object) and "When a rpc call is made, the Server MUST reply with a Response"',
};
const UNKNOWN_TOOL: Pinned = {
  id: 'tools.unknown-tool',
  level: 'SHOULD',
  status: 'warn',
  source:
    'Tools §Error Handling: "Protocol Errors: Standard JSON-RPC errors for issues like: Unknown tools" (no MUST or SHOULD keyword names it: the kit grades an isError result SHOULD)',
};
/** What every official SDK v1 server here gets wrong (docs/testing.md, "Findings"). */
const SDK_V1: Pinned[] = [INVALID_REQUEST, UNKNOWN_TOOL];
/** The SDK v1's draft-07 `$schema` key is a note, not a warning (docs/testing.md, "Findings"). */
const EVERYTHING_FINDINGS: Pinned[] = [
  ...SDK_V1,
  {
    id: 'tasks.required-without-task',
    level: 'MUST',
    status: 'fail',
    source:
      'Tasks §Tool-Level Negotiation: taskSupport "required": "Servers MUST return a -32601 (Method not found) error if a client does not attempt to" call the tool as a task',
  },
  // It declares logging, and the SDK v1 answers an invalid level with -32603 (issue 31).
  {
    id: 'logging.invalid-level',
    level: 'SHOULD',
    status: 'warn',
    source:
      'Logging §Error Handling: "Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid log level: -32602 (Invalid params)"',
  },
  { id: 'portability.format', level: 'HOUSE', status: 'warn' },
];
const FILESYSTEM_FINDINGS: Pinned[] = [
  ...SDK_V1,
  { id: 'portability.union', level: 'HOUSE', status: 'warn' },
];
const MEMORY_FINDINGS: Pinned[] = SDK_V1;

/** The report's findings are exactly `pins`, at their level and status; MUST and SHOULD with their spec line. */
function assertPinned(report: ConformanceReport, pins: readonly Pinned[]): void {
  const found = report.checks.filter((c) => c.status === 'fail' || c.status === 'warn');
  assert.deepEqual(
    found.map((c) => c.id).sort(),
    pins.map((p) => p.id).sort(),
    JSON.stringify(found.map((c) => [c.id, c.status, c.reason])),
  );
  for (const pin of pins) {
    const c = found.find((x) => x.id === pin.id);
    assert.deepEqual([c?.level, c?.status], [pin.level, pin.status], pin.id);
    if (pin.level === 'HOUSE') continue;
    const section = (c?.source ?? '').replace(/ \(.*$/, '');
    assert.ok(
      section !== '' && pin.source?.startsWith(section),
      `${pin.id}: its source should quote ${section}`,
    );
  }
  assert.equal(report.ok, !pins.some((p) => p.status === 'fail'));
}

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
    // simulate-research-query requires a task but answers a plain call with isError, not -32601.
    assertPinned(report, EVERYTHING_FINDINGS);
    assert.match(
      report.checks.find((c) => c.id === 'tasks.required-without-task')?.reason ?? '',
      /simulate-research-query called without a task got an isError result/,
    );
    assert.match(
      report.checks.find((c) => c.id === 'portability.format')?.reason ?? '',
      /"gzip-file-as-resource" inputSchema properties\.data: format "uri"\naffects: OpenAI strict/,
    );
    assert.match(
      report.checks.find((c) => c.id === 'logging.invalid-level')?.reason ?? '',
      /got error -32603 \(the message is a raw validation dump\)/,
    );
    // It serves requests before initialize over stdio: not its fault (the rule is the client's).
    assert.ok(!report.checks.some((c) => c.id === 'lifecycle.pre-initialize'));
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
    assert.deepEqual(tap.failed, ['test_invalid_request']);
    // An isError answer to an unknown tool breaks a SHOULD; the long-running tool's default
    // 10 s outlasts --call-timeout 5: cancelled and warned, not failed.
    assert.match(r.stdout, /ok \d+ - test_unknown_tool # TODO warning \[SHOULD\]/);
    assert.match(
      r.stdout,
      /ok \d+ - test_trigger-long-running-operation_schema_0 # TODO warning \[SHOULD\]: .*no result within 5 s; the call was cancelled/,
    );
    assert.match(r.stdout, /# note: idempotentHint says nothing beside readOnlyHint/);
    // Tools without readOnlyHint: true are not called; the list says how to include them.
    assert.match(r.stdout, /^Not called \(not annotated readOnlyHint: true.*\): .*toggle-simulated-logging/m);
    assert.match(r.stdout, /^\d+ passed, 1 failed, \d+ warnings, \d+ not run$/m);
  });

  const filesystem = () => ['--', process.execPath, FILESYSTEM, dir];

  test('server-filesystem: check completes with a parsable report', async () => {
    const r = await runCli(['check', '--json', ...FAST_FLAGS, ...filesystem()], { cwd: dir });
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const report = JSON.parse(r.stdout) as ConformanceReport;
    assert.equal(report.serverInfo?.name, 'secure-filesystem-server');
    assertPinned(report, FILESYSTEM_FINDINGS);
  });

  test('server-filesystem: test completes; its inputs lack descriptions', async () => {
    const r = await runCli(
      ['test', '--reporter', 'tap', '--concurrency', '8', ...FAST_FLAGS, ...filesystem()],
      { cwd: dir },
    );
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const tap = tapSummary(r.stdout);
    assert.ok(tap.tests > 50);
    // Missing field descriptions are a house rule: warnings, not failures.
    assert.deepEqual(tap.failed, ['test_invalid_request']);
    assert.match(
      r.stdout,
      /ok \d+ - test_read_text_file_input_schema_field_descriptions # TODO warning \[HOUSE\]/,
    );
    assert.match(
      r.stdout,
      /ok \d+ - test_read_media_file_schema_portability # TODO warning \[HOUSE\]: .*outputSchema properties\.content\.items: anyOf/,
    );
  });

  test('server-memory: check completes with the SDK v1 findings', async () => {
    const r = await runCli(['check', '--json', ...FAST_FLAGS, '--', process.execPath, MEMORY], {
      env: { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') },
    });
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const report = JSON.parse(r.stdout) as ConformanceReport;
    assert.equal(report.serverInfo?.name, 'memory-server');
    assertPinned(report, MEMORY_FINDINGS);
  });
});
