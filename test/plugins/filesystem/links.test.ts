/**
 * Hard links and links out of the root, end to end through TestClient: a hard link is
 * another name of a file that may live outside, and a link out must not reveal whether its
 * target exists (a link to `/etc` would otherwise probe for any host file).
 */
import assert from 'node:assert/strict';
import { link, lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { filesystemPlugin } from '../../../plugins/filesystem/index.ts';
import { ErrorCode, type JsonObject, type PluginDefinition } from '../../../src/index.ts';
import { TestClient } from '../../../src/testing/client/test-client.ts';
import { makeTree, rejection, type Tree } from './helpers.ts';

interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const text = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('');

let tree: Tree;
let strict: TestClient;
let lenient: TestClient;
const outsideFile = () => path.join(tree.outside, 'linked.txt');

before(async () => {
  tree = await makeTree('mcp-fs-links-');
  await writeFile(outsideFile(), 'outside content');
  await link(outsideFile(), path.join(tree.root, 'hard'));
  const start = (env: Record<string, string>) =>
    TestClient.start({
      plugins: [filesystemPlugin as PluginDefinition<never>],
      env: { MCP_FILESYSTEM_ROOT: tree.root, ...env },
    });
  strict = await start({});
  lenient = await start({ MCP_FILESYSTEM_ALLOW_HARDLINKS: 'true' });
});

after(async () => {
  await strict?.close();
  await lenient?.close();
  await tree?.cleanup();
});

async function callTool(client: TestClient, name: string, args: JsonObject): Promise<ToolResult> {
  return (await client.callTool(name, args)) as unknown as ToolResult;
}

describe('hard links', () => {
  test('by default read_file, resources/read and write_file refuse a hard-linked file', async () => {
    const read = await callTool(strict, 'read_file', { path: 'hard' });
    assert.equal(read.isError, true);
    assert.match(text(read), /more than one hard link.*MCP_FILESYSTEM_ALLOW_HARDLINKS=true/);
    assert.ok(!text(read).includes('outside content'));
    const err = await rejection(strict.request('resources/read', { uri: 'file:///hard' }));
    assert.equal(err.code, ErrorCode.InvalidParams);
    const written = await callTool(strict, 'write_file', { path: 'hard', content: 'pwned' });
    assert.equal(written.isError, true);
    assert.equal(await readFile(outsideFile(), 'utf8'), 'outside content');
    for (const r of [read, written]) assert.ok(!text(r).includes(tree.base), text(r));
  });

  test('with MCP_FILESYSTEM_ALLOW_HARDLINKS=true it is read, and written without changing the other link', async () => {
    const read = await callTool(lenient, 'read_file', { path: 'hard' });
    assert.equal(read.structuredContent?.content, 'outside content');
    const written = await callTool(lenient, 'write_file', { path: 'hard', content: 'new content' });
    assert.notEqual(written.isError, true, text(written));
    assert.equal(await readFile(path.join(tree.root, 'hard'), 'utf8'), 'new content');
    assert.equal(await readFile(outsideFile(), 'utf8'), 'outside content');
    assert.equal((await lstat(outsideFile())).nlink, 1);
  });
});

describe('a link out of the root', () => {
  /** Every answer a client can get about `name` (and a path under it), as text. */
  async function answers(name: string): Promise<string[]> {
    const out: string[] = [];
    for (const p of [name, `${name}/x.txt`]) {
      for (const [tool, args] of [
        ['read_file', { path: p }],
        ['list_files', { path: p }],
        ['write_file', { path: p, content: 'pwned' }],
      ] as const) {
        const result = await callTool(strict, tool, args);
        assert.equal(result.isError, true, `${tool} ${p}`);
        out.push(`${tool} ${p}: ${text(result)}`);
      }
      const err = await rejection(strict.request('resources/read', { uri: `file:///${p}` }));
      out.push(`resources/read ${p}: ${String(err.code)} ${err.message}`);
    }
    return out;
  }

  test('answers exactly the same whether its target exists or not', async () => {
    const links: [string, string, string][] = [
      ['probe-abs', path.join(tree.outside, 'maybe'), path.join(tree.outside, 'maybe')],
      ['probe-rel', '../outside/maybe', '../outside/maybe'],
      ['probe-etc', '/etc/mcp-toolkit-no-such-file', '/etc/passwd'],
    ];
    for (const [name, missing] of links) await symlink(missing, path.join(tree.root, name));
    const before = await Promise.all(links.map(([name]) => answers(name)));
    assert.deepEqual(await readdir(tree.outside), ['linked.txt', 'secret.txt'], 'nothing created outside');
    await mkdir(path.join(tree.outside, 'maybe'));
    await writeFile(path.join(tree.outside, 'maybe', 'x.txt'), 'x');
    for (const [name, , present] of links) {
      await rm(path.join(tree.root, name));
      await symlink(present, path.join(tree.root, name));
    }
    const afterwards = await Promise.all(links.map(([name]) => answers(name)));
    assert.deepEqual(afterwards, before);
    assert.equal(await readFile(path.join(tree.outside, 'maybe', 'x.txt'), 'utf8'), 'x');
    for (const line of before.flat()) assert.ok(!line.includes(tree.base), line);
  });
});
