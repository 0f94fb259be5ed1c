import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { buildTestApp } from './http-helpers.ts';

test("/readyz runs the plugins' own checks: a filesystem root that vanished makes it 503, naming the plugin", async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'mcp-ready-'));
  const t = await buildTestApp({ MCP_PLUGINS: 'filesystem', MCP_FILESYSTEM_ROOT: root });
  try {
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json().checks['plugin:filesystem'], { ok: true });
    await rm(root, { recursive: true, force: true });
    // A fresh app: the checks of the first one are cached for a few seconds.
    const again = await buildTestApp({ MCP_PLUGINS: 'filesystem', MCP_FILESYSTEM_ROOT: root });
    try {
      await rm(root, { recursive: true, force: true });
      const gone = await again.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(gone.statusCode, 503);
      const check = gone.json().checks['plugin:filesystem'];
      assert.equal(check.ok, false);
      assert.match(check.detail, /MCP_FILESYSTEM_ROOT/);
      assert.doesNotMatch(check.detail, new RegExp(root));
    } finally {
      await again.close();
    }
  } finally {
    await t.close();
    await rm(root, { recursive: true, force: true });
  }
});
