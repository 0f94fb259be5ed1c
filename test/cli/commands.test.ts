/**
 * No silent fallbacks on the command line: every command answers --help and -h with its own
 * usage and exit 0; --version and -V print the version; an HTTP-only flag with the stdio
 * transport is refused with exit 2; and when stderr is not a terminal, every line the server
 * writes there is JSON (the start-up summary is a log line), while a terminal (or
 * MCP_LOG_FORMAT=pretty) gets the readable summary.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { CLI, childEnv, REPO_ROOT, spawnHttpServer } from '../helpers/spawn-server.ts';

const VERSION = (JSON.parse(readFileSync(`${REPO_ROOT}/package.json`, 'utf8')) as { version: string })
  .version;

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: REPO_ROOT,
    env: childEnv(env),
    input: '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function assertJsonLines(stderr: string): Record<string, unknown>[] {
  const lines = stderr.split('\n').filter((l) => l !== '');
  assert.ok(lines.length > 0, 'something was written to stderr');
  return lines.map((line) => {
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    assert.ok(parsed, `a stderr line that is not JSON: ${line}\n--- all of stderr:\n${stderr}`);
    return parsed;
  });
}

describe('--help and --version', () => {
  for (const command of ['run', 'dev', 'proxy', 'doctor', 'install', 'login', 'init', 'check', 'test']) {
    for (const flag of ['--help', '-h']) {
      test(`${command} ${flag}: its own usage on stdout, exit 0`, () => {
        const r = cli([command, flag]);
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, new RegExp(`^Usage: mcp-toolkit ${command}\\b`));
        assert.equal(r.stderr, '');
      });
    }
  }

  for (const flag of ['--version', '-V']) {
    test(`${flag} prints the version`, () => {
      const r = cli([flag]);
      assert.equal(r.status, 0);
      assert.equal(r.stdout, `${VERSION}\n`);
    });
  }

  test('no command: the list of commands, exit 0; an unknown one: exit 2', () => {
    const r = cli([]);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /mcp-toolkit run .*start the server/);
    assert.equal(cli(['serve']).status, 2);
  });

  test('an unknown flag: the command and its usage, exit 2', () => {
    const r = cli(['doctor', '--verbose'], { MCP_LOG_FORMAT: 'pretty' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^mcp-toolkit doctor: Unknown option '--verbose'/);
    assert.match(r.stderr, /Usage: mcp-toolkit doctor/);
  });
});

describe('flags are named as flags', () => {
  test('a bad --port value is reported as the flag, not as MCP_HTTP_PORT, exit 2', () => {
    const r = cli(['run', '--transport', 'http', '--port', 'abc'], { MCP_LOG_FORMAT: 'pretty' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^mcp-toolkit run: --port "abc" is invalid: expected an integer from 0 to 65535/);
    assert.doesNotMatch(r.stderr, /MCP_HTTP_PORT="abc"/);
    const host = cli(['run', '--transport', 'http', '--host', '0.0.0.0;id'], { MCP_LOG_FORMAT: 'pretty' });
    assert.equal(host.status, 2);
    assert.match(host.stderr, /^mcp-toolkit run: --host "0\.0\.0\.0;id" is invalid: expected an IP address/);
    const dev = cli(['dev', '--port', '70000'], { MCP_LOG_FORMAT: 'pretty' });
    assert.equal(dev.status, 2);
    assert.match(dev.stderr, /^mcp-toolkit dev: --port "70000" is invalid/);
  });

  test('an unknown flag close to a real one gets a "did you mean"', () => {
    const r = cli(['run', '--transprt', 'http'], { MCP_LOG_FORMAT: 'pretty' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /Unknown option '--transprt': did you mean --transport\?/);
    const far = cli(['run', '--verbose'], { MCP_LOG_FORMAT: 'pretty' });
    assert.doesNotMatch(far.stderr, /did you mean/);
  });
});

describe('run: HTTP-only flags with stdio', () => {
  test('--port without --transport http is refused, exit 2, nothing on stdout', () => {
    const r = cli(['run', '--port', '9000'], { MCP_LOG_FORMAT: 'pretty' });
    assert.equal(r.status, 2);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      /--port applies to the HTTP transport only, and the transport is stdio \(the default\)/,
    );
  });

  test('--host with MCP_TRANSPORT=stdio is refused, naming where stdio came from', () => {
    const r = cli(['run', '--host', '0.0.0.0'], { MCP_TRANSPORT: 'stdio', MCP_LOG_FORMAT: 'pretty' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--host applies to the HTTP transport only, .*\(MCP_TRANSPORT=stdio\)/);
  });

  test('on a log stream the refusal is a JSON line too', () => {
    const [line, ...rest] = assertJsonLines(cli(['run', '--port', '9000']).stderr);
    assert.deepEqual(rest, []);
    assert.equal(line?.level, 60);
    assert.match(String(line?.msg), /--port applies to the HTTP transport only/);
  });
});

describe('stderr when it is not a terminal', () => {
  test('every line the HTTP server writes is JSON, the summary included', async () => {
    const server = await spawnHttpServer({ MCP_LOG_LEVEL: 'info', MCP_PLUGINS: 'conformance' });
    await server.stop();
    const lines = assertJsonLines(server.stderr());
    const summary = lines.find((l) => String(l.msg).startsWith('mcp-toolkit listening on'));
    assert.ok(summary, 'the summary is a log line');
    assert.equal(summary.url, server.url);
    assert.equal(typeof summary.tools, 'number');
    assert.deepEqual(summary.plugins, ['conformance']);
    assert.match(
      String(summary.inspector),
      /^npx @modelcontextprotocol\/inspector --transport http --server-url /,
    );
  });

  test('a start-up failure is a JSON line with its code, exit 2', () => {
    const r = cli(['run'], { MCP_PLUGINS: 'no-such-plugin' });
    assert.equal(r.status, 2);
    const [line, ...rest] = assertJsonLines(r.stderr);
    assert.deepEqual(rest, []);
    assert.equal(line?.code, 'ERR_MCP_PLUGIN_NOT_FOUND');
    assert.match(String(line?.msg), /Plugin "no-such-plugin" not found/);
  });

  test('with pretty logs (a terminal) the summary is readable lines', async () => {
    const server = await spawnHttpServer({ MCP_LOG_FORMAT: 'pretty', MCP_PLUGINS: 'conformance' });
    await server.stop();
    assert.match(server.stderr(), /^ {2}connect a client: npx @modelcontextprotocol\/inspector/m);
  });
});
