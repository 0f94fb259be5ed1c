/**
 * MCP_* variables that nothing reads are reported, with the closest real setting: in the
 * start-up log and as a failed doctor check. A plugin's own settings count as known only
 * while that plugin is loaded.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { doctor } from '../../src/cli/doctor.ts';
import { SETTING_NAMES } from '../../src/config/settings.ts';
import {
  closestName,
  describeUnknownSetting,
  editDistance,
  unknownSettings,
} from '../../src/config/unknown-settings.ts';
import { CLI, childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';

describe('unknownSettings', () => {
  test('a typo gets the closest name', () => {
    const found = unknownSettings({ MCP_TRNSPORT: 'http' }, SETTING_NAMES);
    assert.deepEqual(found, [{ name: 'MCP_TRNSPORT', suggestion: 'MCP_TRANSPORT' }]);
    assert.equal(
      describeUnknownSetting(found[0]!),
      'MCP_TRNSPORT is not a setting; did you mean MCP_TRANSPORT?',
    );
  });

  test('swapped letters, a missing word part and a wrong plural are typos', () => {
    assert.equal(closestName('MCP_HTTP_PROT', SETTING_NAMES), 'MCP_HTTP_PORT');
    assert.equal(closestName('MCP_API_KEY', SETTING_NAMES), 'MCP_API_KEYS');
    assert.equal(closestName('MCP_LOGLEVEL', SETTING_NAMES), 'MCP_LOG_LEVEL');
    assert.equal(editDistance('ab', 'ba'), 1);
  });

  test('something far from every name gets no suggestion', () => {
    const [found] = unknownSettings({ MCP_WEATHER_API: 'x' }, SETTING_NAMES);
    assert.equal(found?.suggestion, undefined);
    assert.match(
      describeUnknownSetting(found!),
      /^MCP_WEATHER_API is not a setting of the server or of a loaded plugin/,
    );
  });

  test('known names, empty values, other prefixes and the test suite’s own variable are left alone', () => {
    const env = {
      MCP_TRANSPORT: 'http',
      MCP_TRNSPORT: '',
      OTEL_SERVICE_NAME: 'x',
      MCP_SPEC_SCHEMAS_DIR: '/x',
    };
    assert.deepEqual(unknownSettings(env, SETTING_NAMES), []);
  });
});

describe('reported where users look', () => {
  test('start-up logs a warning per variable, with the suggestion', () => {
    const r = spawnSync(process.execPath, [CLI, 'run'], {
      cwd: REPO_ROOT,
      env: childEnv({ MCP_PLUGINS: 'conformance', MCP_TRNSPORT: 'http', MCP_LOG_LEVEL: 'warn' }),
      input: '',
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const warnings = r.stderr
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string; variable?: string; suggestion?: string });
    const warning = warnings.find((w) => w.variable === 'MCP_TRNSPORT');
    assert.ok(warning, r.stderr);
    assert.equal(warning.level, 40);
    assert.equal(warning.suggestion, 'MCP_TRANSPORT');
    assert.equal(warning.msg, 'MCP_TRNSPORT is not a setting; did you mean MCP_TRANSPORT?');
  });

  test('doctor fails a check for it; a loaded plugin’s setting is known, an unloaded one’s is not', async () => {
    const lines: string[] = [];
    const code = await doctor(
      { MCP_PLUGINS: 'conformance', MCP_TRNSPORT: 'http', MCP_FILESYSTEM_ROOT: '/tmp' },
      (line) => lines.push(line),
    );
    assert.equal(code, 1);
    const failed = lines.filter((l) => l.startsWith('✗'));
    assert.deepEqual(failed, [
      '✗ MCP_FILESYSTEM_ROOT is not a setting of the server or of a loaded plugin (see docs/configuration.md)',
      '✗ MCP_TRNSPORT is not a setting; did you mean MCP_TRANSPORT?',
    ]);
    lines.length = 0;
    assert.equal(
      await doctor({ MCP_PLUGINS: 'conformance' }, (line) => lines.push(line)),
      0,
      lines.join('\n'),
    );
  });
});
