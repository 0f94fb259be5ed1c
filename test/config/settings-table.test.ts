/**
 * The settings-table generator on a user's plugin: a required setting (`url: z.url()`) is shown
 * as `required` instead of crashing the generator, and `--plugin` prints one plugin's table.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { pluginRows } from '../../scripts/settings-table.ts';
import weather from '../fixtures/weather-plugin/index.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

const PLUGIN = path.join(REPO_ROOT, 'test', 'fixtures', 'weather-plugin', 'index.ts');

test('a required setting is shown as required, an optional one as unset, a default as itself', () => {
  const rows = pluginRows(weather as never);
  assert.deepEqual(
    rows.map((r) => [r.name, r.defaultValue]),
    [
      ['MCP_WEATHER_URL', 'required'],
      ['MCP_WEATHER_API_KEY', '(unset)'],
      ['MCP_WEATHER_UNIT', '`C`'],
    ],
  );
});

test('--plugin prints that plugin’s table', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(REPO_ROOT, 'scripts', 'settings-table.ts'), '--plugin', PLUGIN],
    { cwd: REPO_ROOT },
  );
  assert.match(stdout, /^\| `MCP_WEATHER_URL` \| required \| Base URL of the forecast service \|$/m);
  assert.match(stdout, /^\| `MCP_WEATHER_UNIT` \| `C` \| Temperature unit \|$/m);
});
