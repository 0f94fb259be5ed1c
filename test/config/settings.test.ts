import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DOCS_WITH_TABLE, renderSettingsTable, START } from '../../scripts/settings-table.ts';
import { maskSecret } from '../../src/base/env.ts';
import { InternalCode, ToolkitError } from '../../src/base/errors.ts';
import { parseSettings, SETTING_NAMES } from '../../src/config/settings.ts';
import { docPages } from '../helpers/doc-blocks.ts';

test('defaults: stdio, 127.0.0.1:8000/mcp, the filesystem plugin; the result is frozen', () => {
  const s = parseSettings({});
  assert.equal(s.MCP_TRANSPORT, 'stdio');
  assert.equal(s.MCP_HTTP_HOST, '127.0.0.1');
  assert.equal(s.MCP_HTTP_PORT, 8000);
  assert.equal(s.MCP_HTTP_PATH, '/mcp');
  assert.deepEqual(s.MCP_PLUGINS, ['filesystem']);
  assert.ok(Object.isFrozen(s));
});

test('MCP_HTTP_HOST takes IPv4 and IPv6 addresses and host names', () => {
  for (const host of [
    '0.0.0.0',
    '255.255.255.255',
    '10.1.2.3',
    '::',
    '::1',
    'fe80::1',
    'localhost',
    'mcp.example.com',
    'host-1',
  ]) {
    assert.equal(parseSettings({ MCP_HTTP_HOST: host }).MCP_HTTP_HOST, host);
  }
});

test('values are parsed: integers, lists, enums', () => {
  const s = parseSettings({ MCP_HTTP_PORT: '9000', MCP_PLUGINS: 'a, ./b.ts ,', MCP_TRANSPORT: 'http' });
  assert.equal(s.MCP_HTTP_PORT, 9000);
  assert.deepEqual(s.MCP_PLUGINS, ['a', './b.ts']);
  assert.equal(s.MCP_TRANSPORT, 'http');
});

for (const [name, value, accepts] of [
  ['MCP_HTTP_PORT', 'abc', /integer from 0 to 65535/],
  ['MCP_HTTP_PORT', '70000', /integer from 0 to 65535/],
  ['MCP_TRANSPORT', 'tcp', /stdio, http/],
  ['MCP_HTTP_PATH', 'mcp', /path starting with "\/"/],
  ['MCP_LOG_LEVEL', 'loud', /one of trace, debug/],
  ['MCP_HTTP_HOST', '0.0.0.0;id', /expected an IP address/],
  ['MCP_HTTP_HOST', '256.1.1.1', /expected an IP address/],
  ['MCP_HTTP_HOST', '10.0.0', /expected an IP address/],
] as const) {
  test(`a bad ${name} names the variable, the value and what it accepts`, () => {
    assert.throws(
      () => parseSettings({ [name]: value }),
      (err: ToolkitError) => {
        assert.ok(err instanceof ToolkitError);
        assert.equal(err.code, InternalCode.InvalidSetting);
        assert.ok(err.message.includes(`${name}="${value}"`), err.message);
        assert.match(err.message, accepts);
        return true;
      },
    );
  });
}

test('secrets never appear in messages: keys masked, URL passwords masked', () => {
  assert.equal(maskSecret('MCP_STATE_SECRET', 'abc'), '••••••');
  assert.equal(maskSecret('MCP_API_KEYS', 'a:b'), '••••••');
  assert.equal(
    maskSecret('MCP_REDIS_URL', 'redis://user:hunter2@host:6379/0'),
    'redis://user:••••••@host:6379/0',
  );
  assert.equal(
    maskSecret('MCP_REDIS_URL', 'redis+sentinel://:pw1@s1,s2/m?sentinelUsername=u&sentinelPassword=pw2'),
    'redis+sentinel://:••••••@s1,s2/m?sentinelUsername=u&sentinelPassword=••••••',
  );
  assert.equal(maskSecret('MCP_HTTP_HOST', '127.0.0.1'), '127.0.0.1');
});

test('the CLI exits 2 on a bad setting, before anything listens', () => {
  const r = spawnSync(process.execPath, ['bin/mcp-toolkit.js', 'run', '--transport', 'http'], {
    cwd: new URL('../../', import.meta.url),
    env: { ...process.env, MCP_HTTP_PORT: 'abc', MCP_LOG_FORMAT: 'json' },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(r.status, 2);
  // stderr is not a terminal here: the refusal is one JSON log line with its code.
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  const line = JSON.parse(lines[0]!) as { code: string; msg: string };
  assert.equal(line.code, 'ERR_MCP_INVALID_SETTING');
  assert.match(line.msg, /MCP_HTTP_PORT="abc" is invalid: expected an integer from 0 to 65535/);
  assert.doesNotMatch(r.stderr, /listening/);
});

test('docs/configuration.md carries the current settings table, with every setting; no other page does', async () => {
  const table = await renderSettingsTable();
  assert.deepEqual(DOCS_WITH_TABLE, ['docs/configuration.md']);
  const configuration = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  assert.ok(
    configuration.includes(table),
    'docs/configuration.md is stale: run node scripts/settings-table.ts --write',
  );
  for (const page of docPages().filter((p) => p !== 'docs/configuration.md')) {
    const text = readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8');
    assert.ok(
      !text.includes(START),
      `${page} carries a copy of the settings table: link to docs/configuration.md`,
    );
  }
  for (const name of [...SETTING_NAMES, 'MCP_FILESYSTEM_ROOT', 'MCP_FILESYSTEM_READ_ONLY']) {
    assert.ok(table.includes(`\`${name}\``), name);
  }
});
