/**
 * The fetch handler in the runtimes docs/embedding.md names, each as installed from npm (the
 * devDependencies `bun`, `deno` and `workerd`): Bun (`Bun.serve`) and Deno (`Deno.serve`) run
 * test/fixtures/runtime-host.ts from the sources; workerd serves test/fixtures/runtime-worker.ts
 * bundled by esbuild, as a worker is deployed. Each listens on 127.0.0.1, port 0, and the
 * official v1 client and the v2 client, in its default mode (the 2025 wire, a session) and
 * pinned to 2026-07-28, call a tool there and get its progress. A runtime whose binary is not
 * installed or does not start here is skipped with the reason. (Hono's Node adapter is in
 * fetch-handler.test.ts.)
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { build } from 'esbuild';
import { childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';
import { V2026 } from './http-helpers.ts';

/** Starting a runtime (Deno and Bun transpile the sources, esbuild bundles) under load: generous. */
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 10_000;

const HOST = path.join(REPO_ROOT, 'test/fixtures/runtime-host.ts');
const WORKER = path.join(REPO_ROOT, 'test/fixtures/runtime-worker.ts');

/** The runtime's binary as npm installed it, or why it cannot be used here. */
function binary(name: string): { bin: string } | { skip: string } {
  const bin = path.join(REPO_ROOT, 'node_modules/.bin', name);
  if (!existsSync(bin))
    return { skip: `${name} is not installed (npm install puts it in node_modules/.bin)` };
  const probe = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  if (probe.status !== 0) {
    const why = probe.error?.message ?? (probe.stderr.trim() || `exit ${probe.status}`);
    return { skip: `${name} --version failed here: ${why}` };
  }
  return { bin };
}

interface Started {
  readonly url: string;
  stop(): Promise<void>;
}

/** Resolves with the first match of `pattern` in what `stream` writes; rejects when `child` exits first. */
function firstMatch(
  child: ChildProcess,
  stream: Readable,
  pattern: RegExp,
  output: () => string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} within ${START_TIMEOUT_MS} ms: ${output()}`)),
      START_TIMEOUT_MS,
    );
    stream.on('data', (d: Buffer) => {
      seen += d.toString();
      const m = pattern.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`it exited (${code ?? signal}) before listening: ${output()}`));
    });
  });
}

/** Spawns `bin args` in the repository root and waits for its endpoint, read by `listening`. */
async function start(
  bin: string,
  args: readonly string[],
  listening: (child: ChildProcess, output: () => string) => Promise<string>,
): Promise<Started> {
  const { NODE_TEST_CONTEXT: _, ...env } = childEnv();
  const child = spawn(bin, args, { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
  let output = '';
  const keep = (d: Buffer) => {
    output += d.toString();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(killer);
  };
  try {
    return { url: await listening(child, () => output), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Bun or Deno running runtime-host.ts, which prints `MCP endpoint: <url>` once it listens. */
function startHost(bin: string, args: readonly string[]): Promise<Started> {
  return start(bin, args, (child, output) =>
    firstMatch(child, child.stdout as Readable, /MCP endpoint: (http:\/\/\S+)/, output),
  );
}

/**
 * workerd serving runtime-worker.ts: esbuild bundles it into one module (Node's built-ins stay
 * imports, which workerd provides), and workerd reports the port it was given on its control
 * descriptor (Node's APIs, nodejs_compat, are on by default from the compatibility date 2026-08-04).
 * The toolkit reads its version from package.json next to its sources
 * (src/base/package-version.ts): workerd shows a worker's modules as files under /bundle, so the
 * config adds package.json as a module and the bundle's `import.meta.url` is a file two folders
 * below it. Packages bundled from CommonJS `require` Node's built-ins, through `createRequire`.
 */
async function startWorkerd(bin: string, dir: string): Promise<Started> {
  await build({
    entryPoints: [WORKER],
    outfile: path.join(dir, 'worker.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    conditions: ['workerd', 'worker'],
    define: { 'import.meta.url': JSON.stringify('file:///bundle/src/base/worker.mjs') },
    banner: {
      js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire('/bundle/worker.mjs');",
    },
    logLevel: 'error',
  });
  await copyFile(path.join(REPO_ROOT, 'package.json'), path.join(dir, 'package.json'));
  const config = path.join(dir, 'config.capnp');
  await writeFile(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.mjs", esModule = embed "worker.mjs"),
    (name = "package.json", text = embed "package.json"),
  ],
  compatibilityDate = "2026-11-01",
);
`,
  );
  return start(bin, ['serve', config, '--control-fd=3'], async (child, output) => {
    const port = await firstMatch(
      child,
      child.stdio[3] as Readable,
      /"event":"listen","socket":"http","port":(\d+)/,
      output,
    );
    return `http://127.0.0.1:${port}/mcp`;
  });
}

/** The official clients against `url()`: each calls `add` and `progress`. */
function clientTests(url: () => string): void {
  test('the official v1 client (2025 wire): a session, a tool, its progress, DELETE', async () => {
    const client = new V1Client({ name: 'runtime-v1', version: '1.0.0' });
    const transport = new V1Transport(new URL(url()));
    await client.connect(transport);
    try {
      assert.ok(transport.sessionId, 'the handler named a session');
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'add'));
      const sum = await client.callTool({ name: 'add', arguments: { a: 40, b: 2 } });
      assert.deepEqual(sum.structuredContent, { sum: 42 });
      const seen: number[] = [];
      await client.callTool({ name: 'progress', arguments: {} }, undefined, {
        onprogress: (p) => seen.push(p.progress),
      });
      assert.deepEqual(seen, [0, 50, 100]);
      await transport.terminateSession();
      assert.equal(transport.sessionId, undefined);
    } finally {
      await client.close();
    }
  });

  test('the official v2 client in its default mode (2025 wire): a session, a tool, its progress', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(url()));
    const client = new Client({ name: 'runtime-v2', version: '1.0.0' });
    await client.connect(transport);
    try {
      assert.notEqual(client.getNegotiatedProtocolVersion(), V2026);
      assert.ok(transport.sessionId, 'the handler named a session');
      const sum = await client.callTool({ name: 'add', arguments: { a: 1, b: 41 } });
      assert.deepEqual(sum.structuredContent, { sum: 42 });
      const seen: number[] = [];
      await client.callTool(
        { name: 'progress', arguments: {} },
        { onprogress: (p: { progress: number }) => seen.push(p.progress) },
      );
      assert.deepEqual(seen, [0, 50, 100]);
    } finally {
      await client.close();
    }
  });

  test('the official v2 client pinned to 2026-07-28: a tool, and its progress over SSE', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(url()));
    const client = new Client(
      { name: 'runtime-v2-2026', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: V2026 } } },
    );
    await client.connect(transport);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), V2026);
      const sum = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
      assert.deepEqual(sum.structuredContent, { sum: 42 });
      const seen: number[] = [];
      const done = await client.callTool(
        { name: 'progress', arguments: {} },
        { onprogress: (p: { progress: number }) => seen.push(p.progress) },
      );
      assert.deepEqual(seen, [0, 50, 100]);
      assert.equal((done.content as { text?: string }[])[0]?.text, 'finished');
    } finally {
      await client.close();
    }
  });
}

/** One runtime: started before its tests, stopped after them; skipped with the reason when it cannot run. */
function runtime(
  name: string,
  found: { bin: string } | { skip: string },
  run: (bin: string) => Promise<Started>,
) {
  describe(`the fetch handler under ${name}`, 'skip' in found ? { skip: found.skip } : {}, () => {
    let started: Started | undefined;
    before(async () => {
      if ('bin' in found) started = await run(found.bin);
    });
    after(() => started?.stop());
    clientTests(() => {
      assert.ok(started, `${name} did not start`);
      return started.url;
    });
  });
}

runtime('Bun', binary('bun'), (bin) => startHost(bin, [HOST]));
runtime('Deno', binary('deno'), (bin) => startHost(bin, ['run', '--allow-all', HOST]));

let workerDir: string | undefined;
runtime('workerd', binary('workerd'), async (bin) => {
  workerDir = await mkdtemp(path.join(os.tmpdir(), 'mcp-workerd-'));
  return startWorkerd(bin, workerDir);
});
after(async () => {
  if (workerDir) await rm(workerDir, { recursive: true, force: true });
});
