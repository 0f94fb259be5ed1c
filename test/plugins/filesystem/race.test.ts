/**
 * The sandbox against a local attacker: a separate process (racer.ts) swaps a folder inside
 * the root with a symbolic link to a folder outside (renameat2(RENAME_EXCHANGE)), as fast as it can, while read_file,
 * resources/read, list_files and write_file run through TestClient in a loop. Not one byte
 * may come from outside, not one outside entry may be listed, nothing may be written there.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { filesystemPlugin } from '../../../plugins/filesystem/index.ts';
import type { JsonObject, PluginDefinition } from '../../../src/index.ts';
import { TestClient } from '../../../src/testing/client/test-client.ts';
import { makeTree, type Tree } from './helpers.ts';
import { racerUnavailable, startRacer } from './racer.ts';

/** How long the racer swaps; the calls run for as long. */
const RACE_MS = 3000;
const MARKER = `outside-marker-${randomUUID()}`;

let tree: Tree;
let client: TestClient;
let outsideBefore: string[];

before(async () => {
  tree = await makeTree('mcp-fs-race-');
  // root/race is a real folder; root/flip is a link to the outside folder. The racer swaps
  // their names, so "race/f.txt" names, from one instant to the next, the inside file, the
  // outside one, or nothing.
  const race = path.join(tree.root, 'race');
  await mkdir(race);
  await writeFile(path.join(race, 'f.txt'), 'inside');
  await writeFile(path.join(race, 'inside-only.txt'), 'i');
  await writeFile(path.join(tree.outside, 'f.txt'), MARKER);
  await writeFile(path.join(tree.outside, `${MARKER}.txt`), MARKER);
  await symlink(tree.outside, path.join(tree.root, 'flip'));
  outsideBefore = (await readdir(tree.outside)).sort();
  client = await TestClient.start({
    plugins: [filesystemPlugin as PluginDefinition<never>],
    env: { MCP_FILESYSTEM_ROOT: tree.root },
  });
});

after(async () => {
  await client?.close();
  await tree?.cleanup();
});

interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

test('a folder swapped with a link to outside never lets a call read, list or write outside', async (t) => {
  const unavailable = racerUnavailable();
  if (unavailable !== undefined) {
    t.skip(unavailable);
    return;
  }
  const { child, swaps } = await startRacer(
    path.join(tree.root, 'race'),
    path.join(tree.root, 'flip'),
    RACE_MS,
  );
  let running = true;
  child.once('exit', () => {
    running = false;
  });
  const seen = { calls: 0, reads: 0, listings: 0, writes: 0, resourceReads: 0 };
  const leaks: string[] = [];
  const call = (name: string, args: JsonObject) =>
    client.callTool(name, args) as unknown as Promise<ToolResult>;
  try {
    for (let i = 0; running; i++) {
      const [read, listed, written, resource] = await Promise.all([
        call('read_file', { path: 'race/f.txt' }),
        call('list_files', { path: 'race' }),
        call('write_file', { path: `race/w-${i}.txt`, content: 'written' }),
        client.request('resources/read', { uri: 'file:///race/f.txt' }).then(
          (r) => r as { contents: { text?: string }[] },
          () => undefined,
        ),
      ]);
      seen.calls += 4;
      if (!read.isError) {
        seen.reads += 1;
        if (read.structuredContent?.content !== 'inside') leaks.push(`read_file: ${JSON.stringify(read)}`);
      }
      if (JSON.stringify(read).includes(MARKER)) leaks.push('read_file marker: the answer names the marker');
      if (!listed.isError) {
        seen.listings += 1;
        const names = ((listed.structuredContent?.entries ?? []) as { name: string }[]).map((e) => e.name);
        if (!names.includes('inside-only.txt') || names.includes(`${MARKER}.txt`)) {
          leaks.push(`list_files: ${names.join(',')}`);
        }
      }
      if (!written.isError) seen.writes += 1;
      if (resource !== undefined) {
        seen.resourceReads += 1;
        if (resource.contents[0]?.text !== 'inside')
          leaks.push(`resources/read: ${JSON.stringify(resource)}`);
      }
    }
  } finally {
    child.kill();
  }
  const swapCount = await swaps;
  const outsideAfter = (await readdir(tree.outside)).sort();
  const leaked: Record<string, number> = {};
  for (const leak of leaks) {
    const kind = leak.slice(0, leak.indexOf(':'));
    leaked[kind] = (leaked[kind] ?? 0) + 1;
  }
  const created = outsideAfter.filter((name) => !outsideBefore.includes(name)).length;
  const report = JSON.stringify({ swaps: swapCount, ...seen, leaked, createdOutside: created });
  t.diagnostic(report);
  // The race really ran, and the sandbox did not simply refuse everything.
  assert.ok(swapCount > 1000, `the racer swapped: ${report}`);
  assert.ok(seen.reads > 0 && seen.listings > 0 && seen.writes > 0 && seen.resourceReads > 0, report);
  assert.deepEqual(leaks.slice(0, 5), [], report);
  assert.deepEqual(outsideAfter, outsideBefore, `nothing was created outside: ${report}`);
  assert.equal(await readFile(path.join(tree.outside, 'f.txt'), 'utf8'), MARKER);
});
