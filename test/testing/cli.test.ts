/**
 * `mcp-toolkit check` and `mcp-toolkit test` as commands: usage errors (exit 2), the checklist
 * and JSON, node test-runner reporters (spec, TAP, JUnit to a file), exit codes 0 and 1, and
 * our own filesystem server spawned over stdio by the real CLI.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCheck } from '../../src/cli/check.ts';
import { runTest } from '../../src/cli/test.ts';
import { FIXTURES, REPO_ROOT, runCli } from './helpers/fixtures.ts';
import { readJUnit } from './helpers/junit-schema.ts';

function capture() {
  const io = { out: '', err: '' };
  return {
    io,
    cli: {
      out: (t: string) => {
        io.out += t;
      },
      err: (t: string) => {
        io.err += t;
      },
      env: {},
    },
  };
}

const fixture = (defect: string) => ['--', process.execPath, path.join(FIXTURES, 'stdio.ts'), defect];

describe('usage', () => {
  for (const [argv, pattern] of [
    [[], /no target/],
    [['--wire', '2027', 'http://127.0.0.1:1/mcp'], /--wire expects/],
    [['http://127.0.0.1:1/mcp', '--', 'node', 'server.js'], /not both/],
    [['--header', 'no-colon', 'http://127.0.0.1:1/mcp'], /--header expects/],
    [['--call-timeout=0', 'http://127.0.0.1:1/mcp'], /positive number/],
    [['not a url'], /not a URL/],
    [['--bogus', 'http://127.0.0.1:1/mcp'], /bogus/],
  ] as const) {
    test(`check ${argv.join(' ')} exits 2`, async () => {
      const { io, cli } = capture();
      assert.equal(await runCheck(argv, cli), 2);
      assert.match(io.err, pattern);
      assert.match(io.err, /Usage: mcp-toolkit check/);
    });
  }
  for (const [argv, pattern] of [
    [['--reporter', 'xml', 'http://127.0.0.1:1/mcp'], /--reporter expects/],
    [['--invalid-input', 'maybe', 'http://127.0.0.1:1/mcp'], /--invalid-input expects/],
    [['--concurrency', '0', 'http://127.0.0.1:1/mcp'], /positive integer/],
  ] as const) {
    test(`test ${argv.join(' ')} exits 2`, async () => {
      const { io, cli } = capture();
      assert.equal(await runTest(argv, cli), 2);
      assert.match(io.err, pattern);
    });
  }
  test('--help prints the usage and exits 0', async () => {
    const { io, cli } = capture();
    assert.equal(await runCheck(['--help'], cli), 0);
    assert.match(io.out, /--json/);
    assert.equal(await runTest(['-h'], cli), 0);
    assert.match(io.out, /--reporter spec\|tap\|junit/);
  });
});

describe('the commands against stdio servers', { concurrency: 3 }, () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mcp-kit-cli-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('check prints the checklist and exits 1 on a defect', async () => {
    const r = await runCli(['check', '--request-timeout', '2', ...fixture('stdout-junk')]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^✗ stdio\.stdout: every byte on stdout is a JSON-RPC message \[MUST\]$/m);
    assert.match(r.stdout, /^ {4}a stdout line is not a JSON-RPC message: "broken-fixture ready/m);
    assert.match(r.stdout, /^ {4}fix: write logs and banners to stderr/m);
    assert.match(
      r.stdout,
      /^ {4}rule: Transports §stdio: https:\/\/modelcontextprotocol\.io\/specification\/2025-11-25\/basic\/transports#stdio$/m,
    );
    assert.match(r.stdout, /^✓ notifications\.unanswered: notifications receive no response$/m);
    // Not run: the five tasks checks (the fixture has no tool that takes a task).
    assert.match(r.stdout, /^\d+ passed, 1 failed, 0 warnings, 5 not run$/m);
  });

  test('test writes JUnit to --output, spec to stdout, and exits 0 on the good server', async () => {
    const file = path.join(dir, 'mcp.xml');
    const r = await runCli([
      'test',
      '--strict',
      '--reporter',
      'junit',
      '--output',
      file,
      '--call-timeout',
      '5',
      ...fixture('none'),
    ]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const xml = await readFile(file, 'utf8');
    assert.match(xml, /^<\?xml/);
    assert.match(xml, /<testcase name="test_get_greeting_example_0" classname="test\.example"/);
    assert.match(xml, /<testcase name="test_mcp_tools\[stdio\]" classname="test\.connect"/);
    assert.doesNotMatch(xml, /<failure/);
    assert.match(r.stdout, /✔ test_schedule_note_has_output_schema/);
  });

  test('test reports TAP; a house-rule finding warns (exit 0), and fails with --strict (exit 1)', async () => {
    const args = [
      'test',
      '--reporter',
      'tap',
      '--allow-writes',
      '--fuzz-open-world',
      '--concurrency',
      '4',
      '--call-timeout',
      '5',
    ];
    const r = await runCli([...args, ...fixture('example-fails')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^TAP version 13$/m);
    assert.match(
      r.stdout,
      /ok \d+ - test_set_mode_example_0 # TODO warning \[HOUSE\]: set_mode\(\{"mode":"safe"\}\): the tool answered isError/,
    );
    assert.match(r.stdout, /ok \d+ - test_get_greeting_example_0/);
    assert.match(r.stdout, /^\d+ passed, 0 failed, 1 warnings, 0 not run$/m);
    const strict = await runCli([...args, '--strict', ...fixture('example-fails')]);
    assert.equal(strict.code, 1, strict.stderr);
    assert.match(strict.stdout, /not ok \d+ - test_set_mode_example_0/);
    assert.match(strict.stdout, /\[HOUSE\] fix: keep inputSchema\.examples valid/);
    assert.match(strict.stdout, /^\d+ passed, \d+ failed, 0 warnings, 0 not run$/m);
  });

  test('our filesystem server, spawned by the real CLI, passes check and test --strict', async () => {
    const server = [
      '--',
      process.execPath,
      path.join(REPO_ROOT, 'bin/mcp-toolkit.js'),
      'run',
      '--transport',
      'stdio',
    ];
    const env = {
      MCP_PLUGINS: 'filesystem',
      MCP_FILESYSTEM_ROOT: path.join(dir, 'fs'),
      MCP_LOG_LEVEL: 'warn',
    };
    const check = await runCli(['check', '--json', ...server], { env });
    assert.equal(check.code, 0, check.stdout + check.stderr);
    const report = JSON.parse(check.stdout) as {
      ok: boolean;
      wires: string[];
      transport: string;
      passed: number;
      failed: number;
      warnings: number;
      notRun: number;
      total: number;
      checks: unknown[];
    };
    assert.deepEqual([report.ok, report.transport, report.wires], [true, 'stdio', ['2025', '2026']]);
    // total counts every check, those not run included (before: it left them out).
    assert.ok(report.notRun > 0);
    assert.equal(report.total, report.checks.length);
    assert.equal(report.total, report.passed + report.failed + report.warnings + report.notRun);
    const live = await runCli(['test', '--strict', '--reporter', 'tap', '--allow-writes', ...server], {
      env,
    });
    assert.equal(live.code, 0, live.stdout + live.stderr);
    assert.match(live.stdout, /^\s*ok \d+ - test_write_file_example_0$/m);
    assert.match(live.stdout, /# fail 0$/m);
  });

  test('check and test write JUnit as they go, valid against the Jenkins schema: the suite the target, classname the check, levels and fixes', async () => {
    const checkXml = path.join(dir, 'check.xml');
    const c = await runCli([
      'check',
      '--junit',
      checkXml,
      '--request-timeout',
      '2',
      ...fixture('unknown-tool-not-error'),
    ]);
    assert.equal(c.code, 0, c.stdout + c.stderr); // a house finding: a warning
    const xml = await readFile(checkXml, 'utf8');
    const target = `${process.execPath} ${path.join(FIXTURES, 'stdio.ts')} unknown-tool-not-error`;
    assert.match(
      xml,
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="mcp-toolkit check" tests="\d+" failures="0"/,
    );
    const unknown =
      /<testcase name="tools\.unknown-tool: [^"]*" classname="tools\.unknown-tool" time="[\d.]+">\n\s*<system-out>WARNING ([^<]*)<\/system-out>/.exec(
        xml,
      );
    assert.ok(unknown, xml);
    assert.match(unknown[1] ?? '', /\[HOUSE\] fix: answer tools\/call of a name/);
    assert.match(xml, /<property name="protocolVersion" value="2025-11-25"\/>/);
    const checkSuite = (await readJUnit(xml)).testsuite?.[0];
    assert.equal(checkSuite?.name, `mcp-toolkit check: ${target}`);
    assert.deepEqual(
      checkSuite?.properties?.find((p) => p.name === 'target'),
      { name: 'target', value: target },
    );
    const read = checkSuite?.testcase?.find((c) => c.classname === 'tools.unknown-tool');
    assert.match(
      read?.['system-out']?.[0] ?? '',
      /^WARNING .*\n\[HOUSE\] fix: answer tools\/call of a name/s,
    );
    assert.equal(checkSuite?.testcase?.length, checkSuite?.tests);
    // test: a MUST failure with its fix; the runner file and wrappers appear nowhere.
    const testXml = path.join(dir, 'test.xml');
    const t = await runCli([
      'test',
      '--junit',
      testXml,
      '--call-timeout',
      '5',
      ...fixture('params-null-dropped'),
    ]);
    assert.equal(t.code, 1, t.stdout + t.stderr);
    const txml = await readFile(testXml, 'utf8');
    assert.match(
      txml,
      /<testcase name="test_invalid_request" classname="test\.invalid-request" time="[\d.]+">\n\s*<failure message="tools\/call with params: null \(202[56] wire\): expected error -32600 \(on the 2026 wire -32602 too, and over HTTP -32020\), got no response \(a ping sent after it was answered, this never was\)" type="MUST">/,
    );
    assert.match(
      txml,
      /<testcase name="test_set_mode_calls" classname="test\.not-called"[^>]*>\n\s*<skipped>not run: not called: annotated readOnlyHint: false/,
    );
    const testSuite = (await readJUnit(txml)).testsuite?.[0];
    const failed = testSuite?.testcase?.find((c) => c.name === 'test_invalid_request');
    assert.equal(failed?.failure?.[0]?.type, 'MUST');
    assert.match(failed?.failure?.[0]?.inner ?? '', /\[MUST\] fix: /);
    assert.equal(testSuite?.failures, 1);
    assert.doesNotMatch(txml, /live\.test\.mjs|live-tests\.ts|MCP live tests/);
    assert.match(t.stdout, /^\d+ passed, 1 failed, 0 warnings, \d+ not run$/m);
  });

  test('--baseline: listed failures are expected, listed passes are stale, a bad file is a usage error', async () => {
    const file = path.join(dir, 'baseline.yml');
    await writeFile(file, 'server:\n  - jsonrpc.invalid-request\nclient:\n  - sse-retry\n');
    const ok = await runCli([
      'check',
      '--baseline',
      file,
      '--request-timeout',
      '2',
      ...fixture('params-null-dropped'),
    ]);
    assert.equal(ok.code, 0, ok.stdout);
    assert.match(ok.stdout, /^Baseline .*baseline\.yml: 1 expected failures \(jsonrpc\.invalid-request\)$/m);
    assert.match(ok.stdout, /^\d+ passed, 0 failed, 0 warnings, \d+ not run \(1 expected failures\)$/m);
    const stale = await runCli(['check', '--baseline', file, '--request-timeout', '2', ...fixture('none')]);
    assert.equal(stale.code, 1, stale.stdout);
    assert.match(
      stale.stdout,
      /stale entries, these now pass: remove them from the baseline: jsonrpc\.invalid-request/,
    );
    const live = path.join(dir, 'live-baseline.yml');
    await writeFile(live, 'server:\n  - test.invalid-request:test_invalid_request\n');
    const t = await runCli([
      'test',
      '--baseline',
      live,
      '--call-timeout',
      '5',
      ...fixture('params-null-dropped'),
    ]);
    assert.equal(t.code, 0, t.stdout);
    await writeFile(file, 'server:\n  - tools: unknown-tool\n');
    const bad = await runCli(['check', '--baseline', file, ...fixture('none')]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /server\[0\] is not a check id.*without a space after the colon/);
  });

  test('test calls no tool that could write unless --allow-writes, and says so', async () => {
    const root = path.join(dir, 'untouched');
    const env = { MCP_PLUGINS: 'filesystem', MCP_FILESYSTEM_ROOT: root, MCP_LOG_LEVEL: 'warn' };
    const server = ['--', process.execPath, path.join(REPO_ROOT, 'bin/mcp-toolkit.js'), 'run'];
    const live = await runCli(['test', '--reporter', 'tap', ...server], { env });
    assert.equal(live.code, 0, live.stdout + live.stderr);
    assert.match(
      live.stdout,
      /ok \d+ - test_write_file_calls # SKIP not called: annotated readOnlyHint: false, .*; \d+ calls not made: example_0, schema_0 to schema_\d+, missing_path, /,
    );
    // One line for all of write_file's calls: none of them is a test of its own.
    assert.equal(live.stdout.match(/test_write_file_\w+ # SKIP/g)?.length, 1);
    assert.match(live.stdout, /^\s*ok \d+ - test_read_file_schema_0$/m);
    assert.match(
      live.stdout,
      /^Not called \(not annotated readOnlyHint: true, so a call could write\): write_file\n {2}the target is local: rerun with --allow-writes to include them$/m,
    );
    // The workspace holds only what the plugin creates at start-up: no generated file was written.
    assert.deepEqual(await readdir(root), ['README.md']);
    const both = await runCli(['test', '--allow-writes', '--read-only', ...server], { env });
    assert.equal(both.code, 2);
    assert.match(both.stderr, /contradicts/);
  });
});
