/**
 * `mcp-toolkit proxy`'s arguments: a command after `--` or one http(s) URL becomes the proxy
 * plugin's MCP_PROXY_* settings on top of MCP_TRANSPORT=http and MCP_PLUGINS=proxy (the
 * environment's own upstream blanked, so the two cannot clash); a missing, doubled or
 * malformed upstream and a bad --port or --prefix are usage errors, which the real CLI
 * answers with the command's usage and exit 2.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { proxyOverrides } from '../../src/cli/proxy.ts';
import { CliUsageError } from '../../src/cli/usage.ts';
import { CLI, childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';

function overrides(args: string[]): Record<string, string | undefined> {
  const parsed = proxyOverrides(args);
  assert.equal(parsed.help, false);
  return (parsed as { overrides: Record<string, string | undefined> }).overrides;
}

describe('proxy arguments', () => {
  test('a command after --: the stdio upstream, its arguments as a JSON array', () => {
    const o = overrides([
      '--prefix',
      'mem_',
      '--port',
      '0',
      '--',
      'npx',
      '-y',
      '@scope/server',
      '--flag',
      'a b',
    ]);
    assert.deepEqual(o, {
      MCP_TRANSPORT: 'http',
      MCP_PLUGINS: 'proxy',
      MCP_HTTP_HOST: undefined,
      MCP_HTTP_PORT: '0',
      MCP_PROXY_PREFIX: 'mem_',
      MCP_PROXY_COMMAND: 'npx',
      MCP_PROXY_ARGS: JSON.stringify(['-y', '@scope/server', '--flag', 'a b']),
      MCP_PROXY_URL: '',
    });
  });

  test('a URL: the HTTP upstream, the command blanked', () => {
    const o = overrides(['--host', '0.0.0.0', 'https://mcp.example.com/mcp']);
    assert.equal(o.MCP_PROXY_URL, 'https://mcp.example.com/mcp');
    assert.equal(o.MCP_PROXY_COMMAND, '');
    assert.equal(o.MCP_HTTP_HOST, '0.0.0.0');
    assert.equal(o.MCP_PROXY_PREFIX, undefined);
  });

  test('--help before --, not after it', () => {
    assert.equal(proxyOverrides(['--help']).help, true);
    assert.equal(proxyOverrides(['-h', '--', 'node', 'x.js']).help, true);
    assert.deepEqual(JSON.parse(overrides(['--', 'node', 'x.js', '--help']).MCP_PROXY_ARGS as string), [
      'x.js',
      '--help',
    ]);
  });

  for (const [args, message] of [
    [[], /no upstream/],
    [['--'], /no command after --/],
    [['npx', 'server'], /one URL only.*-- npx server/],
    [['server.js'], /not an http\(s\) URL/],
    [['https://a.example/mcp', '--', 'node', 'x.js'], /not both/],
    [['--port', 'abc', '--', 'node'], /--port "abc" is invalid/],
    [['--prefix', 'a b', '--', 'node'], /--prefix "a b" is invalid/],
    [['--host', '0.0.0.0;id', '--', 'node'], /--host "0\.0\.0\.0;id" is invalid: expected an IP address/],
    [['--host', 'http://127.0.0.1', '--', 'node'], /--host "http:\/\/127\.0\.0\.1" is invalid/],
    [['--transport', 'stdio', '--', 'node'], /Unknown option '--transport'/],
  ] as const) {
    test(`${JSON.stringify(args)} is a usage error`, () => {
      assert.throws(
        () => proxyOverrides(args),
        (err) => err instanceof CliUsageError && err.command === 'proxy' && message.test(err.message),
      );
    });
  }

  test('the CLI: a usage error prints the usage and exits 2', () => {
    const r = spawnSync(process.execPath, [CLI, 'proxy', '--port', '0'], {
      cwd: REPO_ROOT,
      env: childEnv({ MCP_LOG_FORMAT: 'pretty' }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^mcp-toolkit proxy: no upstream/);
    assert.match(r.stderr, /Usage: mcp-toolkit proxy/);
  });
});
