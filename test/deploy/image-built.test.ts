/**
 * The real container image, built from the unchanged Dockerfile by `node scripts/image.ts
 * --test` (the code `npm run image` runs), which exports its file system and runs this file
 * with MCP_TEST_IMAGE naming what it built. The image's Cmd runs under
 * `chroot --userspec=<User>` with exactly the image's Env and WorkingDir, plus the settings a
 * `docker run -e` would add (scripts/image/rootfs.ts, as `npm run image -- --run` does where
 * containers cannot start); a user's own plugin is mounted read-only at /app/plugins/fetcher,
 * as `-v` would. One test runs the docs' `npm run image -- --run` itself. Without
 * MCP_TEST_IMAGE (no engine or no root on this machine) every test here skips.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { globSync, lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IMAGE_PLUGINS } from '../../scripts/bundled-plugins.ts';
import type { ImageConfig } from '../../scripts/image/engine.ts';
import { chrootArgs, mountedUnder, startCommand } from '../../scripts/image/rootfs.ts';
import { publicBindRefusal } from '../../src/auth/public-bind.ts';
import { documentedInImage } from '../docs/plugins-table.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';
import { productionInstallMismatches } from './dockerfile.ts';

interface Built {
  readonly tag: string;
  readonly engine: 'docker' | 'podman';
  readonly rootfs: string;
  readonly size: number;
  readonly config: ImageConfig;
  readonly healthcheck?: { readonly Test?: string[] } | undefined;
}

const descriptor = process.env.MCP_TEST_IMAGE;
const built: Built | undefined = descriptor ? JSON.parse(readFileSync(descriptor, 'utf8')) : undefined;
const skip = built
  ? false
  : 'no built image: node scripts/image.ts builds one with podman and runs this file';
const SHUTDOWN_TIMEOUT_MS = 10_000;
const PLUGIN_MOUNT = 'app/plugins/fetcher';
/** The folders that are volumes (or not files at all): writes there are the image's business. */
const VOLUMES = ['proc', 'dev', 'app/workspace', PLUGIN_MOUNT];
/** Largest image this Dockerfile may make: the Node base (about 250 MB) plus our files. */
const MAX_IMAGE_BYTES = 450e6;

let receiver: OtlpReceiver;
let upstreamUrl: string;
const upstreamSeen: { path: string; headers: IncomingHttpHeaders }[] = [];
const held: ServerResponse[] = [];
let heldArrived: (() => void) | undefined;
const upstream = createServer((req, res) => {
  upstreamSeen.push({ path: req.url ?? '', headers: req.headers });
  if (req.url?.startsWith('/slow')) {
    held.push(res);
    heldArrived?.();
    return;
  }
  res.writeHead(200, { 'content-type': 'text/plain' }).end(`upstream says hi to ${req.url}`);
});
let before_: Map<string, string> | undefined;
/** The folders of /app/plugins as built (read before the test mounts its own plugin there). */
let builtPlugins: string[] = [];

/** Every file and folder of the image outside its volumes, with what a write would change. */
function snapshot(rootfs: string): Map<string, string> {
  const seen = new Map<string, string>();
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(rootfs, rel))) {
      const child = rel ? `${rel}/${name}` : name;
      if (VOLUMES.includes(child)) continue;
      const st = lstatSync(path.join(rootfs, child));
      seen.set(child, `${st.mode}:${st.size}:${st.mtimeMs}:${st.ino}`);
      if (st.isDirectory()) walk(child);
    }
  };
  walk('');
  return seen;
}

/** argv of `chroot` that runs `command` in the image as its User, with its Env (+ `extra`) in its WorkingDir. */
function inImage(image: Built, command: string[], extra: Record<string, string>): string[] {
  return chrootArgs(image.rootfs, image.config, command, extra);
}

interface Running {
  readonly proc: ChildProcess;
  readonly url: string;
  readonly port: number;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Starts the image's Entrypoint + Cmd; resolves once it logs where it listens. */
async function startImage(image: Built, extra: Record<string, string>): Promise<Running> {
  const proc = spawn('chroot', inImage(image, startCommand(image.config), extra), {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.setEncoding('utf8');
  proc.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no listening line in 30 s; stderr:\n${stderr}`)),
      30_000,
    );
    proc.stderr!.on('data', () => {
      const m = /mcp-toolkit listening on (http:\/\/[^\s"]+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening; stderr:\n${stderr}`));
    });
  });
  return { proc, url, port: Number(new URL(url).port), stderr: () => stderr, exited };
}

/** The settings a `docker run -e ...` adds: loopback and a free port here, spans to the receiver. */
function runSettings(service: string, more: Record<string, string> = {}): Record<string, string> {
  return {
    MCP_HTTP_HOST: '127.0.0.1',
    MCP_HTTP_PORT: '0',
    MCP_METRICS_PORT: '0',
    MCP_PLUGINS: 'filesystem,fetcher',
    MCP_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: service,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    ...more,
  };
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'image-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

function textOf(result: unknown): string | undefined {
  return (result as { content?: { type: string; text?: string }[] }).content?.find((c) => c.type === 'text')
    ?.text;
}

async function stop(running: Running): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  running.proc.kill('SIGTERM');
  const killer = setTimeout(() => running.proc.kill('SIGKILL'), SHUTDOWN_TIMEOUT_MS + 10_000);
  const code = await running.exited;
  clearTimeout(killer);
  return { code, ms: Date.now() - started };
}

/** The exported spans of one run: the MCP span, the tool's own span and its CLIENT span. */
async function traceOf(
  service: string,
): Promise<{ mcp: ReceivedSpan; own: ReceivedSpan; client: ReceivedSpan }> {
  const mine = (s: ReceivedSpan) => s.resource['service.name'] === service;
  await receiver.waitForSpans((s) => mine(s) && s.kind === 'CLIENT', 15_000);
  const spans = receiver.spans.filter(mine);
  const names = JSON.stringify(spans.map((s) => [s.name, s.kind, s.scope]));
  const mcp = spans.find((s) => s.name === 'tools/call fetch_url' && s.kind === 'SERVER');
  assert.ok(mcp, `the MCP span: ${names}`);
  assert.equal(mcp.scope, 'mcp-toolkit');
  const own = spans.find((s) => s.name === 'fetch upstream' && s.traceId === mcp.traceId);
  assert.equal(own?.parentSpanId, mcp.spanId, `the tool's own span is the MCP span's child: ${names}`);
  const client = spans.find((s) => s.kind === 'CLIENT' && s.parentSpanId === own.spanId);
  assert.equal(client?.scope, '@opentelemetry/instrumentation-undici', `the outgoing fetch's span: ${names}`);
  return { mcp, own, client };
}

/** The traceparent the upstream received on `pathname`: [trace id, parent span id]. */
function traceparentAt(pathname: string): [string | undefined, string | undefined] {
  const seen = upstreamSeen.find((s) => s.path === pathname);
  assert.ok(seen, `the upstream was called on ${pathname}`);
  const [, traceId, parentId] = String(seen.headers.traceparent).split('-');
  return [traceId, parentId];
}

describe('the built image', { skip }, () => {
  const image = built!;

  before(async () => {
    receiver = await startOtlpReceiver();
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    builtPlugins = readdirSync(path.join(image.rootfs, 'app', 'plugins')).sort();
    // The user's plugin, read-only, where the server looks plugins up by name.
    const target = path.join(image.rootfs, PLUGIN_MOUNT);
    mkdirSync(target, { recursive: true });
    const source = path.join(REPO_ROOT, 'test', 'deploy', 'fixtures', 'image-plugin');
    assert.equal(spawnSync('mount', ['--bind', source, target]).status, 0, 'bind-mount the plugin');
    spawnSync('mount', ['-o', 'remount,bind,ro', target]);
    before_ = snapshot(image.rootfs);
  });

  after(async () => {
    spawnSync('umount', [path.join(image.rootfs, PLUGIN_MOUNT)]);
    await receiver?.close();
    await new Promise((resolve) => upstream.close(resolve));
  });

  test('holds the runtime files and production dependencies only, and says its size', (t) => {
    const app = path.join(image.rootfs, 'app');
    assert.deepEqual(readdirSync(app).sort(), [
      'bin',
      'examples',
      'node_modules',
      'package.json',
      'plugins',
      'src',
      'workspace',
    ]);
    const workspace = lstatSync(path.join(app, 'workspace'));
    assert.equal(`${workspace.uid}:${workspace.gid}`, image.config.User, "the workspace is the server's");
    assert.deepEqual(readdirSync(path.join(app, 'examples')), ['tracing.ts'], 'only the documented preload');
    const tests = globSync(['**/*.test.ts', '**/test/**', '**/.env*', '**/.git'], {
      cwd: app,
      exclude: (name: string) => path.basename(name) === 'node_modules',
    });
    assert.deepEqual(tests, [], 'no test file, test folder, .env or git history');
    assert.deepEqual(
      productionInstallMismatches(app, path.join(REPO_ROOT, 'package-lock.json')),
      [],
      'node_modules is the lockfile minus dev',
    );
    assert.deepEqual(builtPlugins, [...IMAGE_PLUGINS].sort(), 'the bundled plugins without the test fixture');
    assert.deepEqual(builtPlugins, documentedInImage().sort(), "docs/plugins.md's image plugins");
    t.diagnostic(`image size: ${(image.size / 1e6).toFixed(0)} MB`);
    assert.ok(image.size < MAX_IMAGE_BYTES, `${image.size} bytes`);
  });

  test('run with only its own settings and no auth (`docker run -p 8000:8000 mcp-toolkit`), it refuses to serve on 0.0.0.0 and names the setting that allows it', {
    timeout: 60_000,
  }, async () => {
    // Only the image's own Env (a free port, should the refusal ever fail and it listen).
    const r = spawnSync('chroot', inImage(image, startCommand(image.config), { MCP_HTTP_PORT: '0' }), {
      encoding: 'utf8',
      timeout: 45_000,
    });
    assert.equal(r.status, 2, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    const line = JSON.parse(lines[0]!) as { code: string; msg: string };
    assert.equal(line.code, 'ERR_MCP_INVALID_SETTING');
    assert.equal(line.msg, `cannot start:\n${publicBindRefusal('0.0.0.0')}`);
  });

  test('doctor without the filesystem plugin exits 0: the image bakes in no plugin setting', {
    timeout: 60_000,
  }, () => {
    const r = spawnSync(
      'chroot',
      inImage(image, ['node', 'bin/mcp-toolkit.js', 'doctor'], {
        MCP_PLUGINS: 'audit-log',
        MCP_AUTH: 'api_key',
        MCP_API_KEYS: 'alice:0123456789abcdef0123456789abcdef',
      }),
      { encoding: 'utf8', timeout: 45_000 },
    );
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /doctor: all checks passed/);
    assert.doesNotMatch(r.stdout + r.stderr, /MCP_FILESYSTEM_/);
  });

  test('the SDK the server starts: health, readiness, the HEALTHCHECK, a call from the official client, one trace to the upstream, a drain on SIGTERM', {
    timeout: 120_000,
  }, async () => {
    const running = await startImage(image, runSettings('image-builtin'));
    let stopped = false;
    try {
      const health = await fetch(new URL('/healthz', running.url));
      assert.equal(health.status, 200);
      const ready = await fetch(new URL('/readyz', running.url));
      assert.equal(ready.status, 200, await ready.text());
      // The Prometheus exporter is a production dependency: /metrics answers in the image.
      const metricsUrl = /"url":"(http:[^"]+\/metrics)"/.exec(running.stderr())?.[1];
      assert.ok(metricsUrl, running.stderr());
      const scraped = await (await fetch(metricsUrl)).text();
      assert.match(scraped, /^# TYPE mcp_server_active_requests gauge$/m);

      // The image's own HEALTHCHECK, run inside it with its environment.
      const check = image.healthcheck?.Test;
      assert.equal(check?.[0], 'CMD', 'the image keeps its exec-form HEALTHCHECK');
      const probe = (port: number) =>
        spawnSync('chroot', inImage(image, check.slice(1), { MCP_HTTP_PORT: String(port) }), {
          timeout: 15_000,
        });
      assert.equal(probe(running.port).status, 0, 'HEALTHCHECK passes while serving');

      // Who the server runs as: the image's User, by number.
      const status = readFileSync(`/proc/${running.proc.pid}/status`, 'utf8');
      const ids = (field: string) =>
        /^\S+:\s+(.*)$/m.exec(status.split('\n').find((l) => l.startsWith(field))!)?.[1];
      const [uid, gid] = image.config.User.split(':');
      assert.deepEqual(ids('Uid:')?.split(/\s+/), [uid, uid, uid, uid]);
      assert.deepEqual(ids('Gid:')?.split(/\s+/), [gid, gid, gid, gid]);

      const client = await connect(running.url);
      const tools = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(tools.includes('list_files') && tools.includes('fetch_url'), tools.join(', '));
      const wrote = await client.callTool({
        name: 'write_file',
        arguments: { path: 'notes/from-the-image.md', content: 'written in the volume' },
      });
      assert.notEqual(wrote.isError, true, JSON.stringify(wrote));
      const listed = await client.callTool({ name: 'list_files', arguments: { path: 'notes' } });
      assert.match(JSON.stringify(listed.structuredContent), /from-the-image\.md/);
      const fetched = await client.callTool({
        name: 'fetch_url',
        arguments: { url: `${upstreamUrl}/builtin` },
      });
      assert.equal(textOf(fetched), 'upstream says hi to /builtin', JSON.stringify(fetched));

      // SIGTERM with a call in flight: it is answered, then the process exits 0 in time.
      const arrived = new Promise<void>((resolve) => {
        heldArrived = resolve;
      });
      const inFlight = client.callTool({ name: 'fetch_url', arguments: { url: `${upstreamUrl}/slow` } });
      await arrived;
      const stopping = stop(running);
      stopped = true;
      setTimeout(() => {
        for (const res of held.splice(0)) res.writeHead(200).end('slow but there');
      }, 500);
      assert.equal(textOf(await inFlight), 'slow but there');
      const { code, ms } = await stopping;
      assert.equal(code, 0, running.stderr());
      assert.ok(ms < SHUTDOWN_TIMEOUT_MS, `stopped in ${ms} ms`);
      await client.close().catch(() => {});
      assert.equal(probe(running.port).status, 1, 'HEALTHCHECK fails once the server is gone');

      const { mcp, client: span } = await traceOf('image-builtin');
      const [traceId, parentId] = traceparentAt('/builtin');
      assert.equal(traceId, mcp.traceId, "the upstream received the MCP span's trace");
      assert.equal(parentId, span.spanId);
    } finally {
      if (!stopped) await stop(running);
    }
  });

  test('the documented preload (NODE_OPTIONS="--import ./examples/tracing.ts"): one trace from the HTTP server span to the upstream', {
    timeout: 120_000,
  }, async () => {
    const running = await startImage(
      image,
      runSettings('image-preload', { NODE_OPTIONS: '--import ./examples/tracing.ts' }),
    );
    try {
      assert.match(running.stderr(), /using the OpenTelemetry TracerProvider the application registered/);
      const client = await connect(running.url);
      const fetched = await client.callTool({
        name: 'fetch_url',
        arguments: { url: `${upstreamUrl}/preload` },
      });
      assert.equal(textOf(fetched), 'upstream says hi to /preload', JSON.stringify(fetched));
      await client.close();
    } finally {
      const { code } = await stop(running);
      assert.equal(code, 0, running.stderr());
    }
    const { mcp, client } = await traceOf('image-preload');
    const server = receiver.spans.find((s) => s.spanId === mcp.parentSpanId);
    assert.equal(server?.kind, 'SERVER');
    assert.equal(server?.scope, '@opentelemetry/instrumentation-http');
    assert.equal(server?.traceId, mcp.traceId);
    const [traceId, parentId] = traceparentAt('/preload');
    assert.equal(traceId, mcp.traceId);
    assert.equal(parentId, client.spanId);
  });

  test("the docs' local try, `npm run image -- --run`: builds, serves on loopback without auth, stops on SIGTERM and cleans up", {
    timeout: 600_000,
  }, async () => {
    const runs = () =>
      readdirSync(path.join(REPO_ROOT, '.cache', 'image')).filter((d) => d.startsWith('run-'));
    const before = runs();
    // The docs' command, on a free port (tests never take a fixed one), naming the image this
    // test built and its engine.
    const args = ['run', 'image', '--', '--run', '--port', '0', '--tag', image.tag, '--engine', image.engine];
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    for (const name of Object.keys(env))
      if (name.startsWith('MCP_') || name.startsWith('npm_')) delete env[name];
    const npm = spawn('npm', args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    for (const stream of [npm.stdout, npm.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        output += chunk;
      });
    }
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line in 5 min:\n${output}`)), 300_000);
        const look = () => {
          const m =
            /mcp-toolkit listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output) ??
            /image: serving on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        };
        npm.stdout.on('data', look);
        npm.stderr.on('data', look);
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`npm run image exited with ${code} before serving:\n${output}`));
        });
      });
      assert.match(output, /image: .* build -t /, 'it built first');
      const client = await connect(url);
      const tools = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(tools.includes('list_files'), tools.join(', '));
      await client.close();
    } finally {
      npm.kill('SIGTERM');
      const killer = setTimeout(() => npm.kill('SIGKILL'), 60_000);
      const code = await exited;
      clearTimeout(killer);
      assert.equal(code, 0, output);
    }
    assert.match(output, /"signal":"SIGTERM"[^\n]*signal received: draining/, 'the server drained');
    assert.deepEqual(runs(), before, 'the exported file system of the run is removed');
    assert.deepEqual(
      mountedUnder(path.join(REPO_ROOT, '.cache', 'image')).filter((m) => m.includes('/run-')),
      [],
    );
  });

  test('nothing was written outside the volumes', () => {
    assert.ok(before_, 'a snapshot was taken before the first start');
    const after_ = snapshot(image.rootfs);
    const changed = [...new Set([...before_.keys(), ...after_.keys()])].filter(
      (k) => before_!.get(k) !== after_.get(k),
    );
    assert.deepEqual(changed, []);
    // The one write the server made is in its volume, owned by the image's user.
    const written = lstatSync(path.join(image.rootfs, 'app', 'workspace', 'notes', 'from-the-image.md'));
    assert.equal(`${written.uid}:${written.gid}`, image.config.User);
  });
});
