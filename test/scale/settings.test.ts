/**
 * With MCP_REDIS_URL set, replicas must share MCP_STATE_SECRET (a per-process key would
 * reject another replica's 2026 requestState): start-up fails with a message naming it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { InternalCode, ToolkitError } from '../../src/base/errors.ts';
import { parseSettings, requireReplicaSettings } from '../../src/config/settings.ts';
import { CLI, childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';

test('requireReplicaSettings: MCP_STATE_SECRET is required once MCP_REDIS_URL is set', () => {
  assert.throws(
    () => requireReplicaSettings(parseSettings({ MCP_REDIS_URL: 'redis://127.0.0.1:6379' })),
    (err) =>
      err instanceof ToolkitError &&
      err.code === InternalCode.InvalidSetting &&
      /MCP_STATE_SECRET is required when MCP_REDIS_URL is set/.test(err.message),
  );
  requireReplicaSettings(parseSettings({}));
  requireReplicaSettings(
    parseSettings({ MCP_REDIS_URL: 'redis://127.0.0.1:6379', MCP_STATE_SECRET: 's3cret' }),
  );
});

test('the CLI refuses to start (exit 2) before it connects to anything', () => {
  const r = spawnSync(process.execPath, [CLI, 'run', '--transport', 'http', '--port', '0'], {
    cwd: REPO_ROOT,
    env: childEnv({
      MCP_REDIS_URL: 'redis://127.0.0.1:1',
      MCP_PLUGINS: 'conformance',
      MCP_LOG_FORMAT: 'pretty',
    }),
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /cannot start:\nMCP_STATE_SECRET is required when MCP_REDIS_URL is set/);
  assert.doesNotMatch(r.stderr, /listening/);
});

test('a malformed Sentinel or Cluster URL stops the CLI (exit 2) naming MCP_REDIS_URL, the password masked', () => {
  const r = spawnSync(process.execPath, [CLI, 'run', '--transport', 'http', '--port', '0'], {
    cwd: REPO_ROOT,
    env: childEnv({
      MCP_REDIS_URL: 'redis+sentinel://:secretpw@127.0.0.1:1',
      MCP_STATE_SECRET: 'a'.repeat(64),
      MCP_PLUGINS: 'conformance',
      MCP_LOG_FORMAT: 'pretty',
    }),
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(r.status, 2, r.stderr);
  assert.match(
    r.stderr,
    /cannot start:\nMCP_REDIS_URL=.* is invalid: a redis\+sentinel:\/\/ URL names the master/,
  );
  assert.doesNotMatch(r.stderr, /secretpw/);
  assert.doesNotMatch(r.stderr, /listening/);
});
