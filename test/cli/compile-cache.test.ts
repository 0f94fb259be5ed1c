/**
 * The CLI turns on Node's on-disk compile cache, so a stdio server spawned again and again by
 * a desktop agent skips most of its loading after the first start. Without NODE_COMPILE_CACHE
 * set, Node would cache nothing: the cache appearing in the temp folder is the CLI's doing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

test('a CLI start fills the compile cache in the temp folder, and a second start uses it', async (t) => {
  const temp = await mkdtemp(join(tmpdir(), 'mcp-compile-cache-'));
  t.after(() => rm(temp, { recursive: true, force: true }));
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temp, MCP_LOG_LEVEL: 'warn' };
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_DISABLE_COMPILE_CACHE;

  const start = async () => {
    const child = spawn(process.execPath, ['bin/mcp-toolkit.js', 'run', '--transport', 'stdio'], {
      cwd: REPO_ROOT,
      env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
    );
    const line = await new Promise<string>((resolve) =>
      child.stdout.once('data', (d: Buffer) => resolve(String(d))),
    );
    child.stdin.end();
    await new Promise((resolve) => child.on('exit', resolve));
    return JSON.parse(line) as { id: number; result?: unknown };
  };

  const first = await start();
  assert.equal(first.id, 1);
  assert.ok(first.result, 'initialize answered');
  const cached = await readdir(join(temp, 'node-compile-cache'), { recursive: true });
  assert.ok(cached.length > 0, 'the compile cache holds entries after one start');
  const second = await start();
  assert.ok(second.result, 'initialize answered again, from the cache');
});
