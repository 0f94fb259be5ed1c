/**
 * The client examples run as a user runs them (`node examples/<name>.ts ...`), against real
 * servers: the stdio example spawns its own, the HTTP example talks to one we start with
 * API-key auth. Each must complete the handshake, list the tools and call list_files.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO_ROOT, type SpawnedHttpServer, spawnHttpServer } from '../helpers/spawn-server.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs an example script to completion (bounded), without this process's MCP_* settings. */
function runExample(script: string, args: string[]): Promise<Run> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('MCP_') && k !== 'NODE_TEST_CONTEXT') env[k] = v;
  }
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(REPO_ROOT, 'examples', script), ...args],
      { cwd: REPO_ROOT, env, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function assertSession(run: Run, transport: string): void {
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.trim().split('\n');
  assert.match(lines[0]!, new RegExp(`^connected to mcp-toolkit \\S+ (over|at) ${transport}`));
  assert.equal(lines[1], 'tools: list_files, read_file, write_file');
  assert.equal(lines[2], 'list_files .: 1 entries');
  assert.equal(lines[3], '  notes.txt (6 bytes)');
}

let root: string;
const KEY = randomBytes(24).toString('hex');
let server: SpawnedHttpServer | undefined;

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'mcp-examples-'));
  await writeFile(path.join(root, 'notes.txt'), 'hello\n');
});

after(async () => {
  await server?.stop();
  await rm(root, { recursive: true, force: true });
});

describe('examples', { concurrency: true }, () => {
  test('stdio-client.ts spawns the server, initialises, lists tools and calls list_files', async () => {
    assertSession(await runExample('stdio-client.ts', ['--root', root]), 'stdio');
  });

  test('http-client.ts does the same over streamable HTTP with an API key, and fails without', async () => {
    server = await spawnHttpServer({
      MCP_PLUGINS: 'filesystem',
      MCP_FILESYSTEM_ROOT: root,
      MCP_AUTH: 'api_key',
      MCP_API_KEYS: `example:${KEY}`,
    });
    const run = await runExample('http-client.ts', [server.url, '--bearer', KEY]);
    assertSession(run, server.url.replace(/[.]/g, '\\.'));
    assert.match(run.stdout, /\(session [\x21-\x7E]+\)/);
    const refused = await runExample('http-client.ts', [server.url]);
    assert.notEqual(refused.code, 0, 'no key: the example exits non-zero');
    assert.match(refused.stderr, /401/);
  });
});
