/**
 * Servers built on the libraries people build MCP servers with, written the way each README
 * shows (test/testing/fixtures/; mcp-framework's in test/testing/corpus/mcp-framework/, beside
 * its own node_modules), and Microsoft's `@playwright/mcp`: each through `check` and
 * `test`, over stdio and over streamable HTTP on 127.0.0.1, with every finding pinned with its
 * level and the spec line behind it (helpers/pinned.ts). Nothing reaches the network: the
 * fixtures add numbers, and the browser's one page is about:blank behind a proxy that does not
 * exist. A package that is not installed skips its block and says so.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ConformanceReport } from '../../src/testing/conformance/report.ts';
import { corpusInstalled } from './helpers/corpus-install.ts';
import { REPO_ROOT, runCli } from './helpers/fixtures.ts';
import { junitFindings } from './helpers/junit-findings.ts';
import { assertOneWording, type TestFinding } from './helpers/one-wording.ts';
import {
  ACCEPT_IGNORED,
  assertPinned,
  BATCH_SERVED,
  CAPABILITIES_200,
  DELETED_SESSION_SERVED,
  FAST_FLAGS,
  FOREIGN_HOST,
  FOREIGN_ORIGIN,
  freePort,
  HTML_PARSE_ERROR,
  type HttpServerProcess,
  INVALID_CURSOR_SERVED,
  INVALID_LOG_LEVEL,
  INVALID_REQUEST,
  INVALID_REQUEST_PARSE_CODE,
  PARSE_ERROR_500,
  type Pinned,
  RESOURCE_NOT_FOUND_2025,
  startHttpServer,
  tapSummary,
  UNKNOWN_TOOL,
  VERSION_HEADER_SERVED,
} from './helpers/pinned.ts';

const FIXTURES = path.join(REPO_ROOT, 'test/testing/fixtures');
const installed = (pkg: string) => existsSync(path.join(REPO_ROOT, 'node_modules', pkg, 'package.json'));
const missing = (pkg: string) => (installed(pkg) ? false : `${pkg} is not installed (npm ci installs it)`);

async function check(target: readonly string[], flags = FAST_FLAGS): Promise<ConformanceReport> {
  const r = await runCli(['check', '--json', ...flags, ...target]);
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  return JSON.parse(r.stdout) as ConformanceReport;
}

/** test's TAP, and its verdicts read back from the JUnit it writes beside (one-wording.ts). */
async function liveTests(target: readonly string[], flags = FAST_FLAGS) {
  const dir = await mkdtemp(path.join(tmpdir(), 'mcp-kit-frameworks-'));
  try {
    const junit = path.join(dir, 'test.xml');
    const r = await runCli([
      'test',
      '--reporter',
      'tap',
      '--junit',
      junit,
      '--concurrency',
      '8',
      ...flags,
      ...target,
    ]);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    return { stdout: r.stdout, ...(await junitFindings(junit)), ...tapSummary(r.stdout) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** check and test word alike every rule both judge (issue 49: one wording per rule). */
function sameWords(
  report: ConformanceReport,
  run: { findings: TestFinding[]; wire: '2025' | '2026' | undefined },
  label: string,
): void {
  assertOneWording(report, run.findings, `${report.serverInfo?.name ?? 'server'} over ${label}`, {
    ...(run.wire ? { testWire: run.wire } : {}),
  });
}

describe('a server on the official SDK v1', { skip: missing('@modelcontextprotocol/sdk') }, () => {
  const script = path.join(FIXTURES, 'sdk-v1-server.ts');
  let http: HttpServerProcess;
  before(async () => {
    http = await startHttpServer(process.execPath, [script, 'http']);
  });
  after(() => http.stop());

  test('stdio: check and test find the SDK v1 findings', async () => {
    const stdio = ['--', process.execPath, script];
    const report = await check(stdio);
    assert.equal(report.serverInfo?.name, 'sdk-v1-fixture');
    assertPinned(report, [INVALID_CURSOR_SERVED, INVALID_REQUEST, UNKNOWN_TOOL]);
    const run = await liveTests(stdio);
    sameWords(report, run, 'stdio');
    assert.deepEqual(run.failed, ['test_invalid_request']);
    assert.match(run.stdout, /ok \d+ - test_unknown_tool # TODO warning \[HOUSE\]/);
    assert.match(run.stdout, /^\d+ passed, 1 failed, 2 warnings, 0 not run$/m);
  });

  test('HTTP (the SDK Express app, stateless): no Origin check, Express answers bad JSON with HTML', async () => {
    const report = await check([http.url]);
    assertPinned(report, [
      INVALID_CURSOR_SERVED,
      INVALID_REQUEST_PARSE_CODE,
      UNKNOWN_TOOL,
      FOREIGN_ORIGIN,
      HTML_PARSE_ERROR,
      BATCH_SERVED,
    ]);
    assert.match(
      report.checks.find((c) => c.id === 'http.parse-error')?.reason ?? '',
      /HTTP 400 \(text\/html\)/,
    );
    // Its Express app checks Host on loopback: a foreign Host is refused.
    assert.equal(report.checks.find((c) => c.id === 'http.host')?.status, 'pass');
    const run = await liveTests([http.url]);
    sameWords(report, run, 'HTTP');
    assert.deepEqual(run.failed, []);
    assert.match(run.stdout, /ok \d+ - test_invalid_request # TODO warning \[MUST\]: .*error -32700/);
    assert.match(run.stdout, /^\d+ passed, 0 failed, 3 warnings, 0 not run$/m);
  });
});

describe('a server on the official SDK v2', { skip: missing('@modelcontextprotocol/server') }, () => {
  const script = path.join(FIXTURES, 'sdk-v2-server.ts');
  let http: HttpServerProcess;
  before(async () => {
    http = await startHttpServer(process.execPath, [script, 'http']);
  });
  after(() => http.stop());

  test('stdio: both wires; params: null goes unanswered, an invalid cursor is served', async () => {
    const stdio = ['--', process.execPath, script];
    const report = await check(stdio);
    assert.equal(report.serverInfo?.name, 'sdk-v2-fixture');
    assert.deepEqual(report.wires, ['2025', '2026']);
    // Each era on a process of its own: the 2026 checks pass on a process opened with server/discover.
    assertPinned(report, [INVALID_CURSOR_SERVED, INVALID_REQUEST]);
    assert.equal(report.checks.find((c) => c.id === '2026.missing-envelope')?.status, 'pass');
    const run = await liveTests(stdio);
    sameWords(report, run, 'stdio');
    assert.deepEqual(run.failed, ['test_invalid_request']);
    // An unknown tool gets -32602, the spec's example.
    assert.match(run.stdout, /^\d+ passed, 1 failed, 1 warnings, 0 not run$/m);
  });

  test('HTTP (createMcpHandler behind the SDK Host and Origin checks): batches and an invalid cursor are its warnings', async () => {
    const report = await check([http.url]);
    assert.deepEqual(report.wires, ['2025', '2026']);
    assertPinned(report, [INVALID_CURSOR_SERVED, BATCH_SERVED]);
    const run = await liveTests([http.url]);
    sameWords(report, run, 'HTTP');
    assert.deepEqual(run.failed, []);
    assert.match(run.stdout, /^\d+ passed, 0 failed, 1 warnings, 0 not run$/m);
  });
});

describe('a server on fastmcp', { skip: missing('fastmcp') }, () => {
  const script = path.join(FIXTURES, 'fastmcp-server.ts');
  let http: HttpServerProcess;
  before(async () => {
    const port = await freePort();
    http = await startHttpServer(process.execPath, [script, 'http', String(port)], {
      url: `http://127.0.0.1:${port}/mcp`,
    });
  });
  after(() => http.stop());

  /** It declares logging; the SDK v1 under it answers an invalid level with -32603. */
  const common: Pinned[] = [INVALID_LOG_LEVEL];

  test('stdio: params: null unanswered, -32603 for an invalid log level', async () => {
    const stdio = ['--', process.execPath, script];
    const report = await check(stdio);
    assert.equal(report.serverInfo?.name, 'fastmcp-fixture');
    // An unknown tool gets a JSON-RPC error (-32601): no finding.
    assertPinned(report, [INVALID_CURSOR_SERVED, INVALID_REQUEST, ...common]);
    const run = await liveTests(stdio);
    sameWords(report, run, 'stdio');
    assert.deepEqual(run.failed, ['test_invalid_request']);
    assert.match(run.stdout, /ok \d+ - test_tools_have_titles # TODO warning \[HOUSE\]: .*: add/);
    assert.match(run.stdout, /^\d+ passed, 1 failed, 2 warnings, 0 not run$/m);
  });

  test('HTTP: no Origin or Host check, batches served, the deprecated /sse served beside /mcp', async () => {
    const report = await check([http.url]);
    assertPinned(report, [
      INVALID_CURSOR_SERVED,
      INVALID_REQUEST_PARSE_CODE,
      ...common,
      FOREIGN_ORIGIN,
      FOREIGN_HOST,
      BATCH_SERVED,
    ]);
    const run = await liveTests([http.url]);
    sameWords(report, run, 'HTTP');
    assert.deepEqual(run.failed, []);
    assert.match(run.stdout, /ok \d+ - test_deprecated_endpoint\[GET \/sse\] # TODO warning \[HOUSE\]/);
    assert.match(run.stdout, /^\d+ passed, 0 failed, 4 warnings, 0 not run$/m);
  });
});

const MCP_FRAMEWORK = path.join(REPO_ROOT, 'test/testing/corpus/mcp-framework/server.js');
// Its own folder (zod 3 beside it): installed by .ci/run, or here when it is not yet.
const mcpFramework = await corpusInstalled('mcp-framework', 'mcp-framework');

describe('a server on mcp-framework', { skip: mcpFramework }, () => {
  let http: HttpServerProcess;
  before(async () => {
    const port = await freePort();
    http = await startHttpServer(process.execPath, [MCP_FRAMEWORK, 'http', String(port)], {
      url: `http://127.0.0.1:${port}/mcp`,
    });
  });
  after(() => http.stop());

  test('stdio: the SDK v1 under it drops params: null and serves an invalid cursor', async () => {
    const stdio = ['--', process.execPath, MCP_FRAMEWORK];
    const report = await check(stdio);
    assert.equal(report.serverInfo?.name, 'mcp-framework-fixture');
    // An unknown tool gets a JSON-RPC error: no finding.
    assertPinned(report, [INVALID_CURSOR_SERVED, INVALID_REQUEST]);
    const run = await liveTests(stdio);
    sameWords(report, run, 'stdio');
    assert.deepEqual(run.failed, ['test_invalid_request']);
    assert.match(run.stdout, /ok \d+ - test_tools_have_titles # TODO warning \[HOUSE\]/);
    assert.match(run.stdout, /^\d+ passed, 1 failed, 2 warnings, 0 not run$/m);
  });

  test('HTTP Stream: no Origin or Host check, a truncated body gets a bare 500, batches served', async () => {
    const report = await check([http.url]);
    assertPinned(report, [
      INVALID_CURSOR_SERVED,
      INVALID_REQUEST_PARSE_CODE,
      FOREIGN_ORIGIN,
      FOREIGN_HOST,
      PARSE_ERROR_500,
      BATCH_SERVED,
    ]);
    assert.match(report.checks.find((c) => c.id === 'http.parse-error')?.reason ?? '', /got HTTP 500/);
    const run = await liveTests([http.url]);
    sameWords(report, run, 'HTTP');
    assert.deepEqual(run.failed, []);
    assert.match(run.stdout, /ok \d+ - test_invalid_request # TODO warning \[MUST\]: .*error -32700/);
    assert.match(run.stdout, /^\d+ passed, 0 failed, 3 warnings, 0 not run$/m);
  });
});

describe('a server on tmcp', { skip: missing('tmcp') || missing('@tmcp/transport-http') }, () => {
  const script = path.join(FIXTURES, 'tmcp-server.ts');
  let http: HttpServerProcess;
  before(async () => {
    http = await startHttpServer(process.execPath, [script, 'http']);
  });
  after(() => http.stop());

  /**
   * The classes of issue 49, each shown here: a tool whose database is down answers -32603 (a
   * house warning with the server's message, not the output schema's MUST); a tool stricter
   * than its schema answers -32602 "Invalid URL" (a house warning about the schema);
   * resources/list answers -32603 (not run: the code for the server's own failure).
   */
  function assertCallFindings(stdout: string): void {
    assert.match(
      stdout,
      /ok \d+ - test_find_user_schema_0 # TODO warning \[HOUSE\]: .*error -32603 \(connect ECONNREFUSED 127\.0\.0\.1:9\)/,
    );
    assert.match(
      stdout,
      /ok \d+ - test_page_host_schema_0 # TODO warning \[HOUSE\]: .*error -32602 \(.*Invalid URL.*\) although the arguments satisfy the inputSchema/,
    );
  }
  function assertListNotRun(report: ConformanceReport): void {
    const list = report.checks.find((c) => c.id === 'resources.list');
    assert.equal(list?.status, 'not-run');
    assert.match(list?.reason ?? '', /-32603 \(connect ECONNREFUSED/);
  }

  test('stdio: a backend down and a schema looser than the code are house warnings; a list that fails -32603 is not run', async () => {
    const stdio = ['--', process.execPath, script];
    const report = await check(stdio);
    assert.equal(report.serverInfo?.name, 'tmcp-fixture');
    assert.deepEqual(report.wires, ['2025', '2026']);
    assertPinned(report, [INVALID_CURSOR_SERVED, INVALID_REQUEST, UNKNOWN_TOOL, RESOURCE_NOT_FOUND_2025]);
    assertListNotRun(report);
    const run = await liveTests(stdio);
    sameWords(report, run, 'stdio');
    assert.deepEqual(run.failed, ['test_invalid_request']);
    assertCallFindings(run.stdout);
    // 8 calls of find_user, 3 of page_host, and the unknown tool's isError.
    assert.match(run.stdout, /^\d+ passed, 1 failed, 13 warnings, 0 not run$/m);
  });

  test('HTTP: HeaderMismatch for a missing envelope passes; sessions issued but not required: the SHOULD is not run', async () => {
    const report = await check([http.url]);
    assert.deepEqual(report.wires, ['2025', '2026']);
    assertPinned(report, [
      INVALID_CURSOR_SERVED,
      INVALID_REQUEST,
      UNKNOWN_TOOL,
      RESOURCE_NOT_FOUND_2025,
      FOREIGN_ORIGIN,
      FOREIGN_HOST,
      VERSION_HEADER_SERVED,
      ACCEPT_IGNORED,
      DELETED_SESSION_SERVED,
      CAPABILITIES_200,
    ]);
    assertListNotRun(report);
    // Header 2026-07-28, no _meta in the body: 400 with HeaderMismatch, the more specific MUST.
    const envelope = report.checks.find((c) => c.id === '2026.missing-envelope');
    assert.equal(envelope?.status, 'pass', envelope?.reason);
    const session = report.checks.find((c) => c.id === 'lifecycle.pre-initialize');
    assert.equal(session?.status, 'not-run');
    assert.match(session?.reason ?? '', /does not require one/);
    const run = await liveTests([http.url]);
    sameWords(report, run, 'HTTP');
    // On the 2026 wire params: null gets 400 HeaderMismatch (Mcp-Name has no body value): answered.
    assert.deepEqual(run.failed, []);
    assertCallFindings(run.stdout);
    assert.match(run.stdout, /^\d+ passed, 0 failed, 13 warnings, 0 not run$/m);
  });
});

const CHROMIUM = '/usr/bin/chromium';
const PLAYWRIGHT = path.join(REPO_ROOT, 'node_modules/@playwright/mcp/cli.js');

describe('@playwright/mcp with Debian chromium', {
  skip:
    missing('@playwright/mcp') ||
    (existsSync(CHROMIUM) ? false : `${CHROMIUM} is absent (apt-get install -y chromium)`),
}, () => {
  let dir: string;
  let http: HttpServerProcess;
  // Headless, in-memory profile, every request through a proxy that does not exist (port 9, the
  // discard port, closed on 127.0.0.1): its page stays about:blank and nothing leaves the machine.
  const flags = () => [
    PLAYWRIGHT,
    '--headless',
    '--isolated',
    '--browser',
    'chromium',
    '--executable-path',
    CHROMIUM,
    '--no-sandbox',
    '--proxy-server',
    'http://127.0.0.1:9',
    '--output-dir',
    dir,
  ];
  // The browser starts on the first tool call: more than 2 s on a loaded machine.
  const slow = ['--request-timeout', '10', '--call-timeout', '10'];
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mcp-kit-playwright-'));
    const port = await freePort();
    http = await startHttpServer(
      process.execPath,
      [...flags(), '--host', '127.0.0.1', '--port', String(port), '--allowed-hosts', `127.0.0.1:${port}`],
      { url: `http://127.0.0.1:${port}/mcp` },
    );
  });
  after(async () => {
    await http.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Three schemas list a defaulted field as required, and browser_emulate_media's are unions. */
  const schemas: Pinned[] = [
    { id: 'portability.union', level: 'HOUSE', status: 'warn' },
    { id: 'portability.required-default', level: 'HOUSE', status: 'warn' },
  ];

  test('stdio: params: null unanswered, an unknown tool gets isError', async () => {
    const stdio = ['--', process.execPath, ...flags()];
    const report = await check(stdio, slow);
    assert.match(report.serverInfo?.name ?? '', /^Playwright/);
    assertPinned(report, [INVALID_CURSOR_SERVED, INVALID_REQUEST, UNKNOWN_TOOL, ...schemas]);
    const run = await liveTests(stdio, slow);
    sameWords(report, run, 'stdio');
    assert.deepEqual(run.failed, ['test_invalid_request']);
    // Navigation, clicks and typing are not annotated read-only: never called.
    assert.match(run.stdout, /^Not called \(not annotated readOnlyHint: true.*\): .*browser_navigate,/m);
    assert.match(run.stdout, /ok \d+ - test_browser_take_screenshot_missing_scale # TODO warning \[HOUSE\]/);
    assert.match(run.stdout, /^\d+ passed, 1 failed, 9 warnings, \d+ not run$/m);
  });

  test('HTTP: Host checked, Origin not; batches and the deprecated /sse served', async () => {
    const report = await check([http.url], slow);
    assertPinned(report, [
      INVALID_CURSOR_SERVED,
      INVALID_REQUEST_PARSE_CODE,
      UNKNOWN_TOOL,
      ...schemas,
      FOREIGN_ORIGIN,
      BATCH_SERVED,
    ]);
    const run = await liveTests([http.url], slow);
    sameWords(report, run, 'HTTP');
    assert.deepEqual(run.failed, []);
    assert.match(run.stdout, /ok \d+ - test_deprecated_endpoint\[GET \/sse\] # TODO warning \[HOUSE\]/);
    assert.match(run.stdout, /^\d+ passed, 0 failed, 11 warnings, \d+ not run$/m);
  });
});
