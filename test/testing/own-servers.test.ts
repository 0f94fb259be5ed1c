/**
 * Our own servers through the kit: the filesystem plugin passes check, test and test --strict
 * (in-process, and over HTTP behind API-key auth, the key given as a header or found in the
 * token file of `mcp-toolkit login`); the conformance plugin passes check, and its odd tools
 * are the expected findings of test (docs/testing.md lists them).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { filesystemPlugin } from '../../plugins/filesystem/index.ts';
import { type RunningServer, serve } from '../../src/assembly/serve.ts';
import { saveToken } from '../../src/auth/token-store.ts';
import { runCheck } from '../../src/cli/check.ts';
import { conformanceReport, formatReport } from '../../src/testing/conformance/report.ts';
import { planLiveTests } from '../../src/testing/live/plan.ts';
import { startServer } from '../helpers/client.ts';
import { FAST, REPO_ROOT, runPlan } from './helpers/fixtures.ts';

const API_KEY = 'test-kit-key-0123456789abcdef';

describe('the filesystem plugin', () => {
  let dir: string;
  let server: RunningServer;
  let http: RunningServer;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mcp-kit-fs-'));
    const root = path.join(dir, 'workspace'); // created by the plugin, with its README.md
    server = await startServer({
      plugins: [filesystemPlugin as never],
      settings: { MCP_FILESYSTEM_ROOT: root },
    });
    http = await serve({
      env: {
        MCP_TRANSPORT: 'http',
        MCP_HTTP_HOST: '127.0.0.1',
        MCP_HTTP_PORT: '0',
        MCP_PLUGINS: 'filesystem',
        MCP_FILESYSTEM_ROOT: path.join(dir, 'http-workspace'),
        MCP_AUTH: 'api_key',
        MCP_API_KEYS: `ci:${API_KEY}`,
        MCP_LOG_LEVEL: 'silent',
      },
    });
  });
  after(async () => {
    await server.close();
    await http.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('passes check in-process, on both wires', async () => {
    const report = await conformanceReport(server, FAST);
    assert.deepEqual(report.wires, ['2025', '2026']);
    assert.equal(report.ok, true, formatReport(report));
    assert.equal(report.checks.find((c) => c.id === 'tools.structured-content')?.status, 'pass');
  });

  test('passes test and test --strict; its read-only tools draw the idempotentHint warning', async () => {
    const run = await runPlan(server, { strict: true });
    assert.deepEqual(Object.fromEntries(run.failed), {});
    assert.ok(run.names.includes('test_read_file_example_0'));
    assert.ok(run.names.includes('test_write_file_has_output_schema'));
    assert.deepEqual([...run.warned], []);
  });

  test('over HTTP behind API-key auth: passes with the key, fails without it', async () => {
    const url = http.url as string;
    const withKey = await conformanceReport(url, { ...FAST, headers: { 'x-api-key': API_KEY } });
    assert.equal(withKey.ok, true, formatReport(withKey));
    assert.equal(withKey.checks.find((c) => c.id === 'lifecycle.pre-initialize')?.status, 'pass');
    const run = await runPlan(url, { strict: true, headers: { authorization: `Bearer ${API_KEY}` } });
    assert.deepEqual(Object.fromEntries(run.failed), {});
    const without = await conformanceReport(url, FAST);
    assert.equal(without.ok, false);
    assert.match(JSON.stringify(without.checks), /401|-32030/);
  });

  test('check uses the token stored by mcp-toolkit login for the URL', async () => {
    const url = http.url as string;
    const tokenFile = path.join(dir, 'tokens.json');
    await saveToken(tokenFile, {
      serverUrl: url,
      issuer: 'https://issuer.invalid',
      clientId: 'kit',
      accessToken: API_KEY,
      tokenType: 'Bearer',
    });
    let out = '';
    const io = {
      out: (t: string) => {
        out += t;
      },
      err: () => {},
      env: {},
    };
    assert.equal(await runCheck([url, '--token-file', tokenFile, '--request-timeout', '5'], io), 0, out);
    // Its one warning: resources.unknown (our server answers -32602, the 2026 code, on the 2025
    // wire too, where Resources §Error Handling says SHOULD -32002).
    assert.match(out, /^\d+ passed, 0 failed, 1 warnings, \d+ not run$/m);
    assert.match(out, /^! resources\.unknown: /m);
    out = '';
    // Without credentials nothing can be judged: exit 3, the challenge shown, what to do said.
    assert.equal(await runCheck([url, '--token-file', path.join(dir, 'none.json')], io), 3);
    assert.match(out, /^✗ connection: the server answers the handshake \[MUST\]$/m);
    assert.match(out, /^ {4}HTTP 401: the server wants credentials/m);
    assert.match(out, /^ {4}WWW-Authenticate: /m);
    assert.match(
      out,
      /give --token TOKEN .* or sign in first: mcp-toolkit login http:\/\/127\.0\.0\.1:\d+\/mcp$/m,
    );
    assert.match(out, /^- \d+ checks not run \(nothing to judge: no handshake completed\): /m);
    assert.match(out, /^0 passed, 1 failed, 0 warnings, \d+ not run$/m);
    out = '';
    assert.equal(await runCheck([url, '--token-file', path.join(dir, 'none.json'), '--json'], io), 3);
    const json = JSON.parse(out) as { ok: boolean; passed: number; connected: boolean };
    assert.deepEqual([json.ok, json.passed, json.connected], [false, 0, false]);
  });
});

const CONFORMANCE = path.join(REPO_ROOT, 'plugins/conformance/index.ts');

describe('the conformance plugin', {
  skip: existsSync(CONFORMANCE) ? false : 'plugins/conformance is absent',
}, () => {
  let server: RunningServer;
  before(async () => {
    const { conformancePlugin } = (await import(CONFORMANCE)) as { conformancePlugin: never };
    server = await startServer({ plugins: [conformancePlugin] });
  });
  after(() => server.close());

  test('passes check; the verbatim 2020-12 tool draws the portability warnings', async () => {
    const report = await conformanceReport(server, FAST);
    assert.equal(report.ok, true, formatReport(report));
    assert.deepEqual(
      report.checks.filter((c) => c.status === 'warn').map((c) => c.id),
      // resources.unknown: -32602 on the 2025 wire, where the 2025 revisions say SHOULD -32002.
      ['portability.union', 'portability.ref', 'portability.untyped-property', 'resources.unknown'],
    );
    // $schema is allowed: a note on a passing check, not a warning.
    const dollar = report.checks.find((c) => c.id === 'portability.dollar-schema');
    assert.equal(dollar?.status, 'pass');
    assert.match(dollar?.reason ?? '', /^note: "json_schema_2020_12_tool" inputSchema \(root\): \$schema /);
  });

  test('its read-only task tool, called as a task and polled to its end, passes the task checks on both wires', async () => {
    for (const wire of ['2025', '2026'] as const) {
      const report = await conformanceReport(server, { ...FAST, wire });
      const tasks = report.checks.filter((c) => c.id.startsWith('tasks.'));
      assert.deepEqual(
        tasks.map((c) => [c.id, c.status]),
        [
          ['tasks.required-without-task', 'pass'],
          ['tasks.create-result', 'pass'],
          ['tasks.status', 'pass'],
          ['tasks.get', 'pass'],
          ['tasks.result', 'pass'],
        ],
        `${wire}: ${formatReport(report)}`,
      );
      assert.equal(tasks.find((c) => c.id === 'tasks.get')?.reason, '1 tasks followed');
      // The rule's address: the core tasks of 2025-11-25, the tasks extension's own site on 2026.
      assert.deepEqual(
        [...new Set(tasks.map((c) => c.spec.replace(/#.*$/, '')))],
        wire === '2025'
          ? ['https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks']
          : ['https://modelcontextprotocol.github.io/ext-tasks/specification/2026-07-28/tasks.html'],
      );
    }
    // test: slow_compute's quick calls pass as tasks; failing_job (required) runs as one too.
    const run = await runPlan(server, { wire: '2025' });
    assert.equal(run.verdicts.get('test_slow_compute_schema_0')?.status, 'pass');
    assert.match(run.verdicts.get('test_failing_job_schema_0')?.notes.join(' ') ?? '', /isError.*disk full/);
  });

  test('its deliberately odd tools are the findings of test', async () => {
    const run = await runPlan(server);
    // The verbatim 2020-12 schema: no descriptions, and constructs some clients reject ($schema,
    // $defs/$ref, a root allOf). slow_compute works for up to 60 s: called as a task, its longer
    // generated values outlast the call timeout (the task is cancelled). protocol_error_job's
    // task ends failed with a JSON-RPC error, where a valid call should get a result.
    assert.deepEqual([...run.failed.keys()].sort(), [
      'test_json_schema_2020_12_tool_input_schema_field_descriptions',
      'test_json_schema_2020_12_tool_schema_portability',
      'test_protocol_error_job_schema_0',
      'test_slow_compute_schema_1',
      'test_slow_compute_schema_2',
    ]);
    assert.equal(run.verdicts.get('test_json_schema_2020_12_tool_schema_portability')?.status, 'warn');
    // Its conditional (if/then/else, anyOf inside allOf) is satisfied by picking a branch.
    assert.equal(run.verdicts.get('test_json_schema_2020_12_tool_schema_0')?.status, 'pass');
    assert.ok(run.names.includes('test_json_schema_2020_12_tool_schema_3'));
    // Tools that need sampling or elicitation cannot be judged by a client that offers neither.
    assert.match(run.skipped.get('test_test_sampling_schema_0') ?? '', /client capability/);
    assert.match(run.skipped.get('test_test_elicitation_schema_0') ?? '', /client capability/);
    // The tool that always fails is reported (isError), not failed: a generated call may be refused.
    assert.ok(run.names.includes('test_test_error_handling_schema_0'));
    assert.ok(!run.failed.has('test_test_error_handling_schema_0'));
  });

  test('over HTTP: a stream closed mid-call is resumed (2025), x-mcp-header arguments are mirrored (2026)', async () => {
    const running = await serve({
      env: {
        MCP_TRANSPORT: 'http',
        MCP_HTTP_HOST: '127.0.0.1',
        MCP_HTTP_PORT: '0',
        MCP_PLUGINS: 'conformance',
        MCP_LOG_LEVEL: 'silent',
      },
    });
    try {
      const url = running.url as string;
      const pick = async (wire: '2025' | '2026', name: string) => {
        // allowWrites: each tool's calls are cases of their own (not one skipped line).
        const plan = await planLiveTests(url, { ...FAST, wire, allowWrites: true });
        try {
          const c = plan.cases.find((x) => x.name === name);
          assert.ok(c, `${name} is generated`);
          return await c.run();
        } finally {
          await plan.close();
        }
      };
      // test_reconnection closes its SSE stream before the result: GET with Last-Event-ID gets it.
      assert.deepEqual(await pick('2025', 'test_test_reconnection_schema_0'), { notes: ['basic'] });
      // test_x_mcp_header's region argument must also travel in Mcp-Param-Region (SEP-2243).
      const out = await pick('2026', 'test_test_x_mcp_header_schema_3');
      assert.equal(out.skipped, undefined);
    } finally {
      await running.stop();
    }
  });
});
