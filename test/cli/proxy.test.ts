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

  test('--upstreams: the list file, the single upstream blanked', () => {
    const o = overrides(['--port', '0', '--upstreams', 'upstreams.json']);
    assert.equal(o.MCP_PROXY_UPSTREAMS, 'upstreams.json');
    assert.equal(o.MCP_PROXY_COMMAND, '');
    assert.equal(o.MCP_PROXY_URL, '');
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
    // --port: the setting's own range, as the flag.
    [['--port', '', '--', 'node'], /--port "" is invalid/],
    [['--port', ' ', '--', 'node'], /--port " " is invalid: give it a value/],
    [['--port=-1', '--', 'node'], /--port "-1" is invalid: expected an integer from 0 to 65535/],
    [['--port', '-1', '--', 'node'], /Option '--port' argument is ambiguous/],
    [['--port', '65536', '--', 'node'], /--port "65536" is invalid/],
    [['--port', '1.5', '--', 'node'], /--port "1\.5" is invalid/],
    [['--port', '0x50', '--', 'node'], /--port "0x50" is invalid/],
    [['--port', '1e3', '--', 'node'], /--port "1e3" is invalid/],
    [['--port', '8000', '--port', '9000', '--', 'node'], /--port is given more than once/],
    [['--port', '--', 'node'], /Option '--port <value>' argument missing/],
    // --host: an IP address or a host name, nothing else, and not blank (which would mean the default).
    [['--host', '', '--', 'node'], /--host "" is invalid: give it a value/],
    [['--host', '  ', '--', 'node'], /--host " {2}" is invalid: give it a value/],
    [['--host', '256.1.1.1', '--', 'node'], /--host "256\.1\.1\.1" is invalid: expected an IP address/],
    [['--host', '1.2.3', '--', 'node'], /--host "1\.2\.3" is invalid/],
    [['--host', '[::1]', '--', 'node'], /--host "\[::1\]" is invalid/],
    [['--host', 'localhost:8000', '--', 'node'], /--host "localhost:8000" is invalid/],
    [['--host', `${'a'.repeat(64)}.example`, '--', 'node'], /--host "a{64}\.example" is invalid/],
    [['--host', '127.0.0.1', '--host', '0.0.0.0', '--', 'node'], /--host is given more than once/],
    // --prefix: characters of a tool name, with room left for the name.
    [['--prefix', '', '--', 'node'], /--prefix "" is invalid/],
    [['--prefix', 'a'.repeat(64), '--', 'node'], /--prefix "a{64}" is invalid: expected 1 to 63 characters/],
    [['--prefix', 'x\n', '--', 'node'], /--prefix "x\\n" is invalid/],
    [['--prefix', 'mem:', '--', 'node'], /--prefix "mem:" is invalid/],
    [['--prefix', 'a_', '--prefix', 'b_', '--', 'node'], /--prefix is given more than once/],
    // The upstream URL: http(s), a host written out, no credentials on the command line.
    [['ftp://a.example/mcp'], /"ftp:\/\/a\.example\/mcp" is not an http\(s\) URL/],
    [['http://a.example:99999/mcp'], /is not an http\(s\) URL/],
    [['http:///mcp'], /"http:\/\/\/mcp" has no host/],
    [['https://user:secret@a.example/mcp'], /carries credentials.*MCP_PROXY_BEARER_TOKEN/],
    // The command: something to run, words a process can take.
    [['--', ' '], /no command after --/],
    [['--', 'node\0x'], /the command "node\\u0000x" holds a NUL byte/],
    [['--', 'node', 'a\0b'], /the argument "a\\u0000b" holds a NUL byte/],
    // --upstreams: the list, alone.
    [['--upstreams', 'u.json', '--', 'node'], /--upstreams lists every upstream/],
    [['--upstreams', 'u.json', 'https://a.example/mcp'], /--upstreams lists every upstream/],
    [['--upstreams', 'u.json', '--prefix', 'a_'], /--upstreams lists every upstream/],
    [['--upstreams', ' '], /--upstreams is blank/],
    [['--upstreams', 'a', '--upstreams', 'b'], /--upstreams is given more than once/],
  ] as const) {
    test(`${JSON.stringify(args)} is a usage error`, () => {
      assert.throws(
        () => proxyOverrides(args),
        (err) => err instanceof CliUsageError && err.command === 'proxy' && message.test(err.message),
      );
    });
  }

  test('the CLI: a usage error prints the usage and exits 2', () => {
    for (const [args, message] of [
      [['--port', '0'], /^mcp-toolkit proxy: no upstream/],
      [['--port', '0', '--port', '1', '--', 'node'], /^mcp-toolkit proxy: --port is given more than once/],
      [['--host', '', '--', 'node'], /^mcp-toolkit proxy: --host "" is invalid: give it a value/],
    ] as const) {
      const r = spawnSync(process.execPath, [CLI, 'proxy', ...args], {
        cwd: REPO_ROOT,
        env: childEnv({ MCP_LOG_FORMAT: 'pretty' }),
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /Usage: mcp-toolkit proxy/);
    }
  });
});
