/**
 * `mcp-toolkit check` and `mcp-toolkit test` as commands: usage errors (exit 2), the checklist
 * and JSON, node test-runner reporters (spec, TAP, JUnit to a file), exit codes 0 and 1, and
 * our own filesystem server spawned over stdio by the real CLI.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCheck } from '../../src/cli/check.ts';
import { runTest } from '../../src/cli/test.ts';
import { FIXTURES, REPO_ROOT, runCli } from './helpers/fixtures.ts';

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
    assert.match(
      r.stdout,
      /^✗ every byte on stdout is a JSON-RPC message: stdout line "broken-fixture ready/m,
    );
    assert.match(r.stdout, /^✓ notifications receive no response$/m);
    assert.match(r.stdout, /^(\d+)\/(\d+) conformance checks passed$/m);
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
    assert.match(xml, /<testcase name="test_get_greeting_example_0"/);
    assert.match(xml, /<testcase name="test_mcp_tools\[stdio\]"/);
    assert.doesNotMatch(xml, /<failure/);
    assert.match(r.stdout, /✔ test_schedule_note_has_output_schema/);
  });

  test('test reports TAP and exits 1 when a generated test fails', async () => {
    const r = await runCli([
      'test',
      '--reporter',
      'tap',
      '--allow-writes',
      '--concurrency',
      '4',
      '--call-timeout',
      '5',
      ...fixture('example-fails'),
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^TAP version 13$/m);
    assert.match(r.stdout, /not ok \d+ - test_set_mode_example_0/);
    assert.match(r.stdout, /ok \d+ - test_get_greeting_example_0/);
    assert.match(r.stdout, /# fail 1$/m);
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
    const report = JSON.parse(check.stdout) as { ok: boolean; wires: string[]; transport: string };
    assert.deepEqual([report.ok, report.transport, report.wires], [true, 'stdio', ['2025', '2026']]);
    const live = await runCli(['test', '--strict', '--reporter', 'tap', '--allow-writes', ...server], {
      env,
    });
    assert.equal(live.code, 0, live.stdout + live.stderr);
    assert.match(live.stdout, /^\s*ok \d+ - test_write_file_example_0$/m);
    assert.match(live.stdout, /# fail 0$/m);
  });

  test('test calls no tool that could write unless --allow-writes, and says so', async () => {
    const root = path.join(dir, 'untouched');
    const env = { MCP_PLUGINS: 'filesystem', MCP_FILESYSTEM_ROOT: root, MCP_LOG_LEVEL: 'warn' };
    const server = ['--', process.execPath, path.join(REPO_ROOT, 'bin/mcp-toolkit.js'), 'run'];
    const live = await runCli(['test', '--reporter', 'tap', ...server], { env });
    assert.equal(live.code, 0, live.stdout + live.stderr);
    assert.match(
      live.stdout,
      /ok \d+ - test_write_file_example_0 # SKIP not called: annotated readOnlyHint: false/,
    );
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
