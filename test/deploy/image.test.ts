/**
 * What the container image does, done on a fresh copy of the repository (no container
 * engine runs here): the files the Dockerfile copies from the build context (as git knows
 * them, so nothing ignored or local), the Dockerfile's `npm ci --omit=dev` (offline, from
 * npm's cache), then its CMD with its ENV. The server must answer /healthz, /readyz and a
 * tool call, export its span (so the lazily loaded OpenTelemetry exporters are exercised
 * too), and exit 0 on SIGTERM. A runtime import of a package listed under devDependencies
 * fails here, as it would in the image.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { BUNDLED_PLUGINS, IMAGE_PLUGINS } from '../../scripts/bundled-plugins.ts';
import { documentedInImage } from '../docs/plugins-table.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';
import {
  contextSources,
  execForm,
  imageEnv,
  inBuildContext,
  productionInstallMismatches,
  readDockerfile,
  readDockerignore,
  splitWords,
} from './dockerfile.ts';

const run = promisify(execFile);
const file = readDockerfile();
const READY_TIMEOUT_MS = 30_000;

/**
 * Tracked and new (not git-ignored) files under the Dockerfile's COPY sources that .dockerignore
 * admits: what a fresh clone sends to the builder.
 */
async function contextFiles(): Promise<string[]> {
  const { stdout } = await run(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...contextSources(file)],
    { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 },
  );
  const rules = readDockerignore();
  return stdout.split('\0').filter((f) => f !== '' && inBuildContext(f, rules));
}

/** The Dockerfile's `npm ci ...` arguments (the part of its RUN before any `&&`). */
function npmCiArgs(): string[] {
  const runLine = file.instructions.find((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args));
  assert.ok(runLine, 'the Dockerfile runs npm ci');
  const part = runLine.args.split('&&').find((p) => /\bnpm ci\b/.test(p))!;
  return splitWords(part).slice(1);
}

/** This process's environment without MCP_* settings or the test runner's child marker. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('MCP_') && k !== 'NODE_TEST_CONTEXT') env[k] = v;
  }
  return env;
}

let dir: string;
let child: ChildProcess | undefined;
let otlp: OtlpReceiver | undefined;
let stderr = '';

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-image-'));
  const app = path.join(dir, 'app');
  let copied = 0;
  for (const rel of await contextFiles()) {
    await mkdir(path.dirname(path.join(app, rel)), { recursive: true });
    // A file deleted in the working tree but still tracked is simply not in the image.
    await copyFile(path.join(REPO_ROOT, rel), path.join(app, rel)).then(
      () => copied++,
      (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      },
    );
  }
  assert.ok(copied > 10, `copied ${copied} files`);
  const args = npmCiArgs();
  const install = (mode: string) =>
    run('npm', [...args, mode], { cwd: app, env: baseEnv(), timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
  // Everything is in npm's cache after the repository's own install; a cache that lacks a
  // package's metadata (it was installed another way) may still go to the registry.
  await install('--offline').catch(async (err: { stderr?: string }) => {
    if (!/ENOTCACHED/.test(err.stderr ?? '')) throw err;
    await install('--prefer-offline');
  });
});

after(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await otlp?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('the bundled plugins sent to the builder are the documented image plugins: no test fixture', () => {
  // A clone owner's own plugin folders go into the image too (docs/deployment.md).
  const plugins = readdirSync(path.join(dir, 'app', 'plugins'))
    .filter((p) => BUNDLED_PLUGINS.includes(p))
    .sort();
  assert.deepEqual(plugins, [...IMAGE_PLUGINS].sort());
  assert.deepEqual(plugins, documentedInImage().sort());
});

test("the production install is exactly the lockfile's non-dev packages", async () => {
  assert.deepEqual(productionInstallMismatches(path.join(dir, 'app')), []);
  assert.ok(
    existsSync(path.join(dir, 'app', 'node_modules', 'fastify')),
    'runtime dependencies are installed',
  );
});

test("the image's start command serves /healthz, /readyz and a traced tool call, then exits 0 on SIGTERM", {
  timeout: 90_000,
}, async () => {
  const cmd = execForm(file.instructions.findLast((i) => i.keyword === 'CMD')?.args ?? '');
  assert.ok(cmd && cmd[0] === 'node', 'an exec-form node CMD');
  otlp = await startOtlpReceiver();
  // The image's ENV, bound to loopback on a free port, spans sent to a receiver on loopback;
  // the filesystem plugin's root is its default, ./workspace of the copy, as in the image.
  const env = {
    ...baseEnv(),
    ...imageEnv(file),
    MCP_HTTP_HOST: '127.0.0.1',
    MCP_HTTP_PORT: '0',
    MCP_OTEL_ENDPOINT: otlp.url,
  };
  const proc = spawn(process.execPath, cmd.slice(1), {
    cwd: path.join(dir, 'app'),
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child = proc;
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no listening line; stderr:\n${stderr}`)),
      READY_TIMEOUT_MS,
    );
    const onData = () => {
      const m = /mcp-toolkit listening on (http:\/\/[^\s"]+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    proc.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening; stderr:\n${stderr}`));
    });
  });
  const base = new URL(url);

  const health = await fetch(new URL('/healthz', base));
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: 'ok' });
  const ready = await fetch(new URL('/readyz', base));
  assert.equal(ready.status, 200);

  // One stateless 2026-wire call: the envelope in _meta, the routing headers.
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'list_files',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'list_files',
        arguments: { path: '.' },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  assert.equal(response.status, 200, stderr);
  const body = (await response.json()) as {
    id: number;
    result?: { isError?: boolean; structuredContent?: { entries: { name: string }[] } };
  };
  assert.equal(body.id, 1);
  assert.notEqual(body.result?.isError, true, JSON.stringify(body));
  // The plugin created the missing root and seeded its README.md.
  assert.ok(
    body.result?.structuredContent?.entries.some((e) => e.name === 'README.md'),
    JSON.stringify(body),
  );

  proc.kill('SIGTERM');
  const killer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
  const code = await exited;
  clearTimeout(killer);
  assert.equal(code, 0, `exit code after SIGTERM; stderr:\n${stderr}`);
  assert.match(stderr, /"signal":"SIGTERM"/, 'the server logged the signal as JSON (MCP_LOG_FORMAT=json)');
  // Flushed at the latest by the graceful stop.
  assert.ok(
    otlp.spans.some((s) => s.name.startsWith('tools/call') && s.kind === 'SERVER'),
    `a tools/call server span was exported: ${otlp.spans.map((s) => s.name).join(', ')}`,
  );
});
