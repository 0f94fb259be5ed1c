/**
 * The proxy plugin's settings as the core parses them from `MCP_PROXY_*`: arguments as JSON or
 * shell words, JSON objects, one upstream exactly, credentials only for a URL; the include and
 * exclude filter; and a stdio upstream that does not start stopping start-up.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TestClient } from '@mcp-toolkit/server/testing';
import { makeFilter } from '../../../plugins/proxy/filter.ts';
import { type ProxySettings, proxyPlugin } from '../../../plugins/proxy/index.ts';
import { templateVariables } from '../../../plugins/proxy/mirror.ts';
import { shellWords } from '../../../plugins/proxy/settings.ts';
import type { PluginDefinition } from '../../../src/index.ts';
import { parsePluginSettings } from '../../../src/plugin/loader.ts';

const parse = (env: Record<string, string>) =>
  parsePluginSettings(
    proxyPlugin as PluginDefinition<Record<string, unknown>>,
    env,
  ) as unknown as ProxySettings;

describe('proxy settings', () => {
  test('arguments: a JSON array or shell words', () => {
    assert.deepEqual(parse({ MCP_PROXY_COMMAND: 'npx', MCP_PROXY_ARGS: '["-y","a b"]' }).args, ['-y', 'a b']);
    assert.deepEqual(parse({ MCP_PROXY_COMMAND: 'npx', MCP_PROXY_ARGS: `-y 'a b' "c \\"d\\"" e\\ f` }).args, [
      '-y',
      'a b',
      'c "d"',
      'e f',
    ]);
    assert.deepEqual(shellWords(`''  x`), ['', 'x']);
    assert.throws(
      () => parse({ MCP_PROXY_COMMAND: 'npx', MCP_PROXY_ARGS: `'open` }),
      /MCP_PROXY_ARGS.*unclosed/s,
    );
    assert.throws(() => parse({ MCP_PROXY_COMMAND: 'npx', MCP_PROXY_ARGS: '[1]' }), /MCP_PROXY_ARGS/);
  });

  test('the prefix: characters of a tool name, leaving room for the name in its 64', () => {
    assert.equal(parse({ MCP_PROXY_COMMAND: 'x', MCP_PROXY_PREFIX: 'a'.repeat(63) }).prefix, 'a'.repeat(63));
    assert.throws(
      () => parse({ MCP_PROXY_COMMAND: 'x', MCP_PROXY_PREFIX: 'a'.repeat(64) }),
      /MCP_PROXY_PREFIX.*expected 1 to 63 characters of a tool name/s,
    );
    assert.throws(() => parse({ MCP_PROXY_COMMAND: 'x', MCP_PROXY_PREFIX: 'mem:' }), /MCP_PROXY_PREFIX/);
  });

  test('environment and scopes are JSON objects', () => {
    const s = parse({
      MCP_PROXY_COMMAND: 'x',
      MCP_PROXY_ENV: '{"A":"1"}',
      MCP_PROXY_SCOPES: '{"t":["admin"]}',
    });
    assert.deepEqual({ ...s.env }, { A: '1' });
    assert.deepEqual({ ...s.scopes }, { t: ['admin'] });
    assert.throws(() => parse({ MCP_PROXY_COMMAND: 'x', MCP_PROXY_ENV: '{"A":1}' }), /MCP_PROXY_ENV/);
    assert.throws(() => parse({ MCP_PROXY_COMMAND: 'x', MCP_PROXY_SCOPES: '["admin"]' }), /MCP_PROXY_SCOPES/);
  });

  test('one upstream, and credentials only for a URL', async () => {
    // Unset is valid settings (the plugin is bundled without being loaded); loading it is not.
    assert.doesNotThrow(() => parse({}));
    await assert.rejects(
      TestClient.start({ plugins: [proxyPlugin as PluginDefinition<never>], env: {} }),
      /MCP_PROXY_COMMAND \(a stdio upstream\), MCP_PROXY_URL \(a streamable-HTTP upstream\) or MCP_PROXY_UPSTREAMS/,
    );
    assert.throws(
      () => parse({ MCP_PROXY_COMMAND: 'x', MCP_PROXY_URL: 'https://a.example/mcp' }),
      /one of them/,
    );
    assert.throws(() => parse({ MCP_PROXY_URL: 'ftp://a.example/mcp' }), /MCP_PROXY_URL/);
    // From the environment as from the command line: a host written out, no credentials.
    assert.throws(
      () => parse({ MCP_PROXY_URL: 'http:///mcp' }),
      /MCP_PROXY_URL="http:\/\/\/mcp" is invalid: the URL has no host/,
    );
    assert.throws(
      () => parse({ MCP_PROXY_URL: 'https://me:hunter2@a.example/mcp' }),
      (err: unknown) =>
        err instanceof Error &&
        /the URL carries credentials \(user:password@\)/.test(err.message) &&
        !err.message.includes('hunter2'),
    );
    assert.throws(
      () => parse({ MCP_PROXY_COMMAND: 'x', MCP_PROXY_BEARER_TOKEN: 't' }),
      /MCP_PROXY_SECRET_ENV/,
    );
  });
});

test('the filter: names for tools and prompts, URIs for resources, exclude wins', () => {
  const f = makeFilter(['read_*', 'file:///docs/*'], ['read_secret']);
  assert.equal(f.name('read_graph'), true);
  assert.equal(f.name('read_secret'), false);
  assert.equal(f.name('write'), false);
  assert.equal(f.uri('file:///docs/a.md'), true);
  assert.equal(f.uri('file:///etc/passwd'), false);
  assert.equal(makeFilter(['read_*'], []).uri('demo://anything'), true);
});

test('template variables', () => {
  assert.deepEqual(templateVariables('demo://{a}/{+path}{?q,lang}{x*}{y:3}'), [
    'a',
    'path',
    'q',
    'lang',
    'x',
    'y',
  ]);
});

test('a stdio upstream that does not start stops start-up', async () => {
  await assert.rejects(
    TestClient.start({
      plugins: [proxyPlugin],
      env: {
        MCP_PROXY_COMMAND: process.execPath,
        MCP_PROXY_ARGS: '["-e","process.exit(3)"]',
        MCP_PROXY_CONNECT_TIMEOUT_MS: '5000',
      },
    }),
    /Plugin "proxy" failed in onReady\(\).*did not start/s,
  );
});
