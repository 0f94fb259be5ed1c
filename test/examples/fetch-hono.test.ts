/**
 * examples/fetch-hono.ts runs as a user runs it (`node examples/fetch-hono.ts`, PORT=0), and
 * serves the filesystem plugin over the fetch handler under Hono: the official v2 client,
 * pinned to 2026-07-28 and sending an API key, lists the tools and calls list_files; without
 * the key it is refused with 401; a GET without a session is 400. docs/embedding.md prints the
 * file as it is.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';

const EXAMPLE = path.join(REPO_ROOT, 'examples/fetch-hono.ts');
const KEY = randomBytes(24).toString('hex');
let root: string;
let proc: ChildProcess;
let url: string;
let stderr = '';

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'mcp-fetch-hono-'));
  await writeFile(path.join(root, 'notes.txt'), 'hello\n');
  const { NODE_TEST_CONTEXT: _, ...env } = childEnv({
    PORT: '0',
    MCP_PLUGINS: 'filesystem',
    MCP_FILESYSTEM_ROOT: root,
    MCP_AUTH: 'api_key',
    MCP_API_KEYS: `example:${KEY}`,
  });
  proc = spawn(process.execPath, [EXAMPLE], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no endpoint line within 30 s: ${stderr}`)), 30_000);
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /MCP endpoint: (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    proc.once('exit', (code) => reject(new Error(`the example exited (${code}): ${stderr}`)));
  });
});

after(async () => {
  if (proc.exitCode === null) {
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    await exited;
  }
  await rm(root, { recursive: true, force: true });
});

test('docs/embedding.md prints examples/fetch-hono.ts as it is', async () => {
  const page = await readFile(path.join(REPO_ROOT, 'docs/embedding.md'), 'utf8');
  const block = /```ts title=examples\/fetch-hono\.ts\n([\s\S]*?)```/.exec(page);
  assert.ok(block, 'the page holds the example');
  assert.equal(block[1], await readFile(EXAMPLE, 'utf8'));
});

test('the official v2 client pinned to 2026-07-28 lists the tools and calls list_files', async () => {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${KEY}` } },
  });
  const client = new Client(
    { name: 'fetch-hono-example-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['list_files', 'read_file', 'write_file']);
    const result = await client.callTool({ name: 'list_files', arguments: { path: '.' } });
    assert.equal(result.isError, undefined, JSON.stringify(result.content));
    const listing = result.structuredContent as { entries: { name: string }[] };
    assert.deepEqual(
      listing.entries.map((e) => e.name),
      ['notes.txt'],
    );
  } finally {
    await client.close();
  }
});

test('without the key: 401; a GET without a session: 400', async () => {
  const refused = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  assert.equal(refused.status, 401);
  const get = await fetch(url, { headers: { authorization: `Bearer ${KEY}`, accept: 'text/event-stream' } });
  assert.equal(get.status, 400);
  assert.match(await get.text(), /Mcp-Session-Id header is required/);
});
