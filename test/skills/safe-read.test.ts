/**
 * The skills folder's reader: open first, then check the opened descriptor's real path, so a
 * link inside the folder that leads out is refused however the path was checked before.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { link, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { InternalCode } from '../../src/index.ts';
import { readInside } from '../../src/skills/safe-read.ts';

let dir: string;
let root: string;
before(async () => {
  dir = await realpath(await mkdtemp(path.join(tmpdir(), 'mcp-safe-read-')));
  root = path.join(dir, 'root');
  await mkdir(path.join(root, 'sub'), { recursive: true });
  await writeFile(path.join(root, 'sub', 'a.txt'), 'inside');
  await writeFile(path.join(dir, 'secret.txt'), 'outside');
  await symlink(path.join(dir, 'secret.txt'), path.join(root, 'out.txt'));
  await symlink(dir, path.join(root, 'up'));
  await symlink(path.join(root, 'sub', 'a.txt'), path.join(root, 'alias.txt'));
});
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const outside = (e: Error & { code?: string }) => e.code === InternalCode.PathOutsideRoot;

test('reads a file inside, directly or through a link that stays inside', async () => {
  assert.equal((await readInside(root, 'sub/a.txt', 1024)).toString(), 'inside');
  assert.equal((await readInside(root, 'alias.txt', 1024)).toString(), 'inside');
});

test('refuses a link, or a linked folder, that leads out of the root', async () => {
  await assert.rejects(readInside(root, 'out.txt', 1024), outside);
  await assert.rejects(readInside(root, 'up/secret.txt', 1024), outside);
});

test('refuses a hard link, whose other name may be outside the root', async () => {
  await link(path.join(dir, 'secret.txt'), path.join(root, 'hard.txt'));
  await assert.rejects(readInside(root, 'hard.txt', 1024), outside);
});

test('refuses paths that are not plain relative paths, folders, and files over the limit', async () => {
  for (const bad of ['../secret.txt', 'sub/../../secret.txt', '', 'sub//a.txt', 'a\0b']) {
    await assert.rejects(readInside(root, bad, 1024), outside, bad);
  }
  await assert.rejects(readInside(root, 'sub', 1024), outside);
  await assert.rejects(readInside(root, 'sub/a.txt', 3), outside);
});

test('a FIFO does not hang the read: it is refused as not a regular file', async (t) => {
  const fifo = path.join(root, 'pipe');
  if (spawnSync('mkfifo', [fifo]).status !== 0) return t.skip('mkfifo is not available here');
  await assert.rejects(readInside(root, 'pipe', 1024), outside);
});
