/**
 * The packages install from a registry, with the commands the docs give. The build
 * (scripts/build.ts: dist/ and dist-create/) is published as @mcp-toolkit/server and
 * create-mcp-toolkit to a local registry (verdaccio, in this process, on 127.0.0.1, its storage
 * in a temporary folder, every other package proxied from the npm registry); then, in empty
 * folders and against that registry only:
 * - `npm create mcp-toolkit@latest demo -- --yes` writes a project that depends on the
 *   published @mcp-toolkit/server and holds none of the toolkit's code;
 * - its `npm install`, `npm test` and `npm start` pass, and the official MCP client calls the
 *   generated plugin's tool over HTTP;
 * - `npx @mcp-toolkit/server run` serves the bundled filesystem plugin from the installed
 *   package.
 * One registry serves every case of the file. Without the npm registry to proxy from, the
 * cases that install are skipped with the reason.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { packageBuild } from '../helpers/package-build.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

const VERSION = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
const UPSTREAM = 'https://registry.npmjs.org/';
const INSTALL_TIMEOUT_MS = 300_000;
const LISTEN_TIMEOUT_MS = 60_000;
/** Two tsc runs (the package and create-mcp-toolkit): minutes on a loaded two-core machine. */
const BUILD_TIMEOUT_MS = 600_000;

let dir: string;
let registry: Server | undefined;
let registryUrl = '';
/** The environment of every npm command: our registry and its token only (no user npmrc). */
let npmEnv: Record<string, string> = {};
/** Why the cases that install cannot run, when they cannot. */
let unavailable: string | undefined;

interface Ran {
  code: number | null;
  out: string;
}

function run(
  command: string,
  args: readonly string[],
  cwd: string,
  timeout = INSTALL_TIMEOUT_MS,
): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, env: npmEnv, timeout, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : -1
          : 0;
        resolve({ code, out: `${stdout}\n${stderr}` });
      },
    );
  });
}

/** Starts a command in its own process group; resolves with the URL it prints as listening. */
function serve(
  command: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  waitMs = LISTEN_TIMEOUT_MS,
) {
  const child = spawn(command, args, {
    cwd,
    env: { ...npmEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8').on('data', (c: string) => {
      output += c;
    });
  }
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no listening line in ${waitMs} ms:\n${output}`)),
      waitMs,
    );
    const check = () => {
      const m = /mcp-toolkit listening on (http:\/\/[^\s"]+)/.exec(output);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (code ${code}) before listening:\n${output}`));
    });
  });
  return { child, url, output: () => output };
}

/** SIGTERM to the group (npm, its shell, node), SIGKILL after 5 s. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-(child.pid as number), s);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

before(
  async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mcp-registry-'));
    const { runServer } = (await import('verdaccio')) as unknown as {
      runServer(config: Record<string, unknown>): Promise<Server>;
    };
    const own = { access: '$all', publish: '$authenticated', unpublish: '$authenticated' };
    registry = await runServer({
      self_path: dir,
      storage: path.join(dir, 'storage'),
      auth: { htpasswd: { file: path.join(dir, 'htpasswd'), max_users: 10 } },
      uplinks: { npmjs: { url: UPSTREAM, timeout: '120s', maxage: '60m' } },
      // Ours are never proxied: a package of the same name upstream cannot stand in for the build.
      packages: {
        '@mcp-toolkit/*': own,
        'create-mcp-toolkit': own,
        '**': { access: '$all', publish: '$authenticated', proxy: 'npmjs' },
      },
      log: { type: 'stdout', format: 'pretty', level: 'fatal' },
      web: { enable: false },
    });
    await new Promise<void>((resolve) => (registry as Server).listen(0, '127.0.0.1', resolve));
    const address = registry.address() as { port: number };
    registryUrl = `http://127.0.0.1:${address.port}/`;
    const user = await fetch(`${registryUrl}-/user/org.couchdb.user:tester`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'tester', password: 'tester-password-1' }),
    });
    const { token } = (await user.json()) as { token: string };
    const npmrc = path.join(dir, 'npmrc');
    await writeFile(npmrc, `registry=${registryUrl}\n//127.0.0.1:${address.port}/:_authToken=${token}\n`);
    const { NODE_TEST_CONTEXT: _, ...inherited } = process.env as Record<string, string>;
    npmEnv = {
      ...Object.fromEntries(
        Object.entries(inherited).filter(([k]) => !k.startsWith('MCP_') && !/^npm_/i.test(k)),
      ),
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
      npm_config_userconfig: npmrc,
      // npm exec (behind npm create) installs what it runs without asking, as on a terminal.
      npm_config_yes: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    };
    // The upstream is needed for every dependency: find out once.
    const probe = await run('npm', ['view', 'zod@4', 'version', '--json'], dir, 60_000);
    if (probe.code !== 0)
      unavailable = `the npm registry cannot be reached through the local one: ${probe.out.slice(-300)}`;
    // The build pack.test.ts packs too: made once for both, in a copy of the clone.
    const built = await packageBuild();
    for (const folder of ['dist', 'dist-create']) {
      const published = await run(
        'npm',
        ['publish', path.join(built, folder), '--tag', 'latest'],
        dir,
        120_000,
      );
      assert.equal(published.code, 0, `npm publish ${folder}: ${published.out.slice(-2000)}`);
    }
  },
  { timeout: BUILD_TIMEOUT_MS + 300_000 },
);

after(async () => {
  await new Promise<void>((resolve) => (registry ? registry.close(() => resolve()) : resolve()));
  await rm(dir, { recursive: true, force: true });
});

let project: string | undefined;
let installed = false;

test('npm create mcp-toolkit@latest demo -- --yes writes a project on the published package', {
  timeout: 300_000,
}, async (t) => {
  if (unavailable) return t.skip(unavailable);
  const empty = path.join(dir, 'create');
  await mkdir(empty);
  const created = await run('npm', ['create', 'mcp-toolkit@latest', 'demo', '--', '--yes'], empty, 120_000);
  assert.equal(created.code, 0, created.out);
  assert.match(created.out, /Created demo in demo/);
  project = path.join(empty, 'demo');
  const pkg = JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  assert.equal(pkg.dependencies['@mcp-toolkit/server'], `^${VERSION}`);
  // The user's own files only: none of the toolkit's sources, tests, scripts or benchmarks.
  const files = (await readdir(project, { recursive: true })).map((f) => f.split(path.sep).join('/'));
  assert.deepEqual(
    files.filter((f) => /^(src|bin|bench|scripts|examples)(\/|$)|^plugins\/(?!demo(\/|$))/.test(f)),
    [],
    files.join(', '),
  );
  for (const file of [
    'plugins/demo/index.ts',
    'test/demo.test.ts',
    'README.md',
    'Dockerfile',
    '.github/workflows/ci.yml',
  ])
    assert.ok(files.includes(file), `${file} in ${files.join(', ')}`);
});

test('its npm install and npm test pass', { timeout: INSTALL_TIMEOUT_MS + 120_000 }, async (t) => {
  if (unavailable || project === undefined) return t.skip(unavailable ?? 'no project (see above)');
  const install = await run('npm', ['install', '--prefer-offline'], project);
  assert.equal(install.code, 0, install.out.slice(-3000));
  const lock = JSON.parse(await readFile(path.join(project, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  assert.equal(lock.packages['node_modules/@mcp-toolkit/server']?.version, VERSION);
  installed = true;
  const tested = await run('npm', ['test'], project, 180_000);
  assert.equal(tested.code, 0, tested.out.slice(-4000));
  assert.match(tested.out, /ℹ pass [1-9]\d*\s+ℹ fail 0/);
});

test('its npm start serves the plugin and the official client calls its tool', {
  timeout: 120_000,
}, async (t) => {
  if (!installed || project === undefined) return t.skip(unavailable ?? 'not installed (see above)');
  // The environment wins over mcp-toolkit.env: a free port instead of 8000.
  const server = serve('npm', ['start'], project, { MCP_HTTP_PORT: '0' });
  const client = new Client({ name: 'registry-test', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(await server.url)));
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['demo_greet'],
    );
    const result = await client.callTool({ name: 'demo_greet', arguments: { name: 'Ada' } });
    assert.deepEqual(result.structuredContent, { message: 'Hello, Ada.' });
  } finally {
    await client.close().catch(() => {});
    await stopGroup(server.child);
  }
});

test('npx @mcp-toolkit/server run serves the bundled filesystem plugin', {
  timeout: INSTALL_TIMEOUT_MS + 60_000,
}, async (t) => {
  if (unavailable) return t.skip(unavailable);
  const empty = path.join(dir, 'npx');
  await mkdir(empty);
  // The docs' command as written; the port comes from the environment (a free one).
  // npx installs the package and its dependencies into its own cache before it starts it.
  const server = serve(
    'npx',
    ['@mcp-toolkit/server', 'run', '--transport', 'http'],
    empty,
    { MCP_HTTP_PORT: '0' },
    INSTALL_TIMEOUT_MS,
  );
  const client = new Client({ name: 'registry-test', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(await server.url)));
    const { tools } = await client.listTools();
    assert.ok(
      tools.some((tool) => tool.name === 'list_files'),
      tools.map((tool) => tool.name).join(', '),
    );
    const listed = await client.callTool({ name: 'list_files', arguments: {} });
    assert.equal(listed.isError ?? false, false, JSON.stringify(listed));
  } finally {
    await client.close().catch(() => {});
    await stopGroup(server.child);
  }
});

test('the docs give exactly these commands', async () => {
  const quickstart = await readFile(path.join(REPO_ROOT, 'docs/quickstart.md'), 'utf8');
  const create = await readFile(path.join(REPO_ROOT, 'packages/create-mcp-toolkit/README.md'), 'utf8');
  for (const [page, text] of [
    ['docs/quickstart.md', quickstart],
    ['packages/create-mcp-toolkit/README.md', create],
  ] as const) {
    assert.match(text, /^npm create mcp-toolkit@latest my-server$/m, page);
    assert.match(text, /^npm create mcp-toolkit@latest my-server -- --yes$/m, page);
  }
  assert.match(quickstart, /^npx @mcp-toolkit\/server run --transport http$/m);
});
