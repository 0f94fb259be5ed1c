/**
 * Messages about a user's plugin settings that are true: a required setting left unset is
 * "not set" (never `=""`), and the settings of a plugin that loaded are known even when they
 * fail validation. doctor in-process, start-up as the real CLI.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { doctor } from '../../src/cli/doctor.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

const PLUGIN = path.join(REPO_ROOT, 'test', 'fixtures', 'weather-plugin', 'index.ts');

test('doctor: an unset required setting is "not set", and the plugin’s other settings are known', async () => {
  const lines: string[] = [];
  const code = await doctor(
    { MCP_PLUGINS: PLUGIN, MCP_WEATHER_API_KEY: 'x', MCP_TRANSPORT: 'stdio' },
    (line) => lines.push(line),
  );
  const output = lines.join('\n');
  assert.equal(code, 1, output);
  assert.match(
    output,
    /MCP_WEATHER_URL is not set: plugin weather requires it \(Base URL of the forecast service\)/,
  );
  assert.doesNotMatch(output, /MCP_WEATHER_URL=""/);
  assert.doesNotMatch(output, /MCP_WEATHER_API_KEY is not a setting/);
});

test('start-up stops with exit code 2 and the same "not set" message', () => {
  const run = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'mcp-toolkit.js'), 'run'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, MCP_PLUGINS: PLUGIN, MCP_TRANSPORT: 'stdio', MCP_LOG_FORMAT: 'json' },
    input: '',
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /MCP_WEATHER_URL is not set: plugin weather requires it/);
});

test('a value that is given but wrong still says what it was', async () => {
  const lines: string[] = [];
  await doctor({ MCP_PLUGINS: PLUGIN, MCP_WEATHER_URL: 'not a url' }, (line) => lines.push(line));
  assert.match(lines.join('\n'), /MCP_WEATHER_URL="not a url" is invalid/);
});
