/**
 * The tarball tells the truth: `npm run package` in a copy of the clone, with a plugin of the
 * clone's owner and a test file planted in it, packs the bundled plugins (docs/plugins.md, "The
 * bundled plugins") and nothing else of the clone. Installed into an empty project (`npm init
 * -y`, as docs/quickstart.md says: `npm pkg set type=module`, `npm install <tarball>`) with one
 * plugin of its own in `plugins/hello/`, `npx mcp-toolkit run --transport http` with
 * `MCP_PLUGINS=hello` serves that plugin, and the official MCP client calls its tool.
 *
 * The install downloads the package's dependencies (from the npm cache when it has them);
 * with no registry to reach, the install part is skipped and says so.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { BUNDLED_PLUGINS } from '../../scripts/bundled-plugins.ts';
import { childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';

/** Two tsc runs (the toolkit and create-mcp-toolkit) and two packs: minutes under load. */
const PACKAGE_TIMEOUT_MS = 600_000;
const INSTALL_TIMEOUT_MS = 240_000;
const LISTEN_TIMEOUT_MS = 60_000;
/** What the clone's build needs; node_modules is linked, not copied. */
const CLONE_PARTS = [
  'package.json',
  'README.md',
  'tsconfig.json',
  'tsconfig.build.json',
  'bin',
  'scripts',
  'src',
  'plugins',
  'packages',
];

// npm and npx come from PATH, run by this Node (its folder first on the children's PATH).
const env = (extra: Record<string, string> = {}) => {
  const { NODE_TEST_CONTEXT: _, ...rest } = childEnv(extra);
  return { ...rest, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` };
};

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function run(command: string, args: readonly string[], cwd: string, timeout: number): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, env: env(), timeout, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const e = err as (Error & { code?: unknown; killed?: boolean }) | null;
        resolve({
          code: e ? (typeof e.code === 'number' ? e.code : -1) : 0,
          stdout,
          stderr,
          timedOut: e?.killed === true,
        });
      },
    );
  });
}

const dir = await mkdtemp(path.join(tmpdir(), 'mcp-tarball-'));
after(() => rm(dir, { recursive: true, force: true }));
/** The tarball the first test packed. */
let tarball: string | undefined;

test('npm run package packs the bundled plugins and nothing else of the clone', {
  timeout: PACKAGE_TIMEOUT_MS + 30_000,
}, async () => {
  const clone = path.join(dir, 'clone');
  await mkdir(clone);
  for (const part of CLONE_PARTS) {
    await cp(path.join(REPO_ROOT, part), path.join(clone, part), {
      recursive: true,
      filter: (src) => !src.includes(`${path.sep}node_modules`),
    });
  }
  await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
  // The clone owner's own plugin and a test: neither belongs in the package.
  await mkdir(path.join(clone, 'plugins', 'planted'));
  await writeFile(
    path.join(clone, 'plugins', 'planted', 'index.ts'),
    "import { definePlugin } from '@mcp-toolkit/server';\n\nexport default definePlugin({ name: 'planted', register() {} });\n",
  );
  await mkdir(path.join(clone, 'test'));
  await writeFile(path.join(clone, 'test', 'planted.test.ts'), "import 'node:test';\n");

  const pack = await run('npm', ['run', 'package'], clone, PACKAGE_TIMEOUT_MS);
  assert.equal(pack.code, 0, `npm run package: ${pack.stdout.slice(-2000)}${pack.stderr.slice(-3000)}`);
  const tarballs = (await readdir(clone)).filter((f) => f.endsWith('.tgz'));
  // The toolkit and create-mcp-toolkit (behind `npm create mcp-toolkit`), with one version.
  const version = (
    JSON.parse(await readFile(path.join(clone, 'package.json'), 'utf8')) as { version: string }
  ).version;
  assert.deepEqual(
    tarballs.sort(),
    [`create-mcp-toolkit-${version}.tgz`, `mcp-toolkit-server-${version}.tgz`],
    'the two packages, nothing else, in the clone',
  );
  const packed = tarballs.filter((f) => f.startsWith('mcp-toolkit-server-'));
  const file = path.join(clone, packed[0] ?? '');

  const list = await run('tar', ['-tzf', file], clone, 30_000);
  assert.equal(list.code, 0, list.stderr);
  const entries = list.stdout.split('\n').filter(Boolean);
  const plugins = [
    ...new Set(entries.flatMap((e) => /^package\/plugins\/([^/]+)\//.exec(e)?.[1] ?? [])),
  ].sort();
  assert.deepEqual(plugins, [...BUNDLED_PLUGINS].sort(), 'the plugins in the tarball are the bundled ones');
  const tops = [...new Set(entries.map((e) => e.split('/')[1]))].sort();
  assert.deepEqual(
    tops,
    ['README.md', 'bin', 'package.json', 'plugins', 'src'],
    'no test/, scripts/ or sources of the clone',
  );
  assert.deepEqual(
    entries.filter((e) => /planted|\.test\.|(?<!\.d)\.ts$/.test(e)),
    [],
    'nothing planted, no test, no TypeScript source',
  );
  tarball = file;
});

/** Waits for the `mcp-toolkit listening on <url>` line on the child's stderr. */
function listening(child: ChildProcess, output: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => done(new Error(`no listening line in ${LISTEN_TIMEOUT_MS} ms`)),
      LISTEN_TIMEOUT_MS,
    );
    const onData = () => {
      const m = /mcp-toolkit listening on (http:\/\/[^\s"]+)/.exec(output());
      if (m?.[1]) done(undefined, m[1]);
    };
    const onExit = (code: number | null) =>
      done(new Error(`the server exited (code ${code}) before listening`));
    const done = (err?: Error, url?: string) => {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      if (url) resolve(url);
      else reject(new Error(`${err?.message}; output:\n${output()}`));
    };
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** SIGTERM to the process group npx leads (npx, its shell, the server), SIGKILL after 5 s. */
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

const HELLO_PLUGIN = `// plugins/hello/index.ts
import { definePlugin, defineTool } from '@mcp-toolkit/server';
import { z } from 'zod';

export default definePlugin({
  name: 'hello',
  register(app) {
    app.add(
      defineTool(
        {
          name: 'greet',
          description: 'Greets a person by name',
          input: z.object({ name: z.string().describe('Who to greet') }),
        },
        async ({ name }) => \`Hello, \${name}!\`,
      ),
    );
  },
});
`;

test('installed into an empty project, the package serves that project’s plugin', {
  timeout: INSTALL_TIMEOUT_MS + LISTEN_TIMEOUT_MS + 60_000,
}, async (t) => {
  if (tarball === undefined) return t.skip('no tarball (see the test above)');
  const project = path.join(dir, 'project');
  await mkdir(project);
  for (const args of [
    ['init', '-y'],
    ['pkg', 'set', 'type=module'],
  ]) {
    const r = await run('npm', args, project, 30_000);
    assert.equal(r.code, 0, `npm ${args.join(' ')}: ${r.stderr}`);
  }
  const install = await run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball],
    project,
    INSTALL_TIMEOUT_MS,
  );
  if (install.code !== 0) {
    const unreachable = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|network/i;
    if (install.timedOut || unreachable.test(install.stderr)) {
      const why = install.timedOut
        ? `no answer in ${INSTALL_TIMEOUT_MS / 1000} s`
        : (unreachable.exec(install.stderr)?.[0] ?? '');
      return t.skip(
        `the npm registry is unreachable (${why}): the package's dependencies cannot be installed`,
      );
    }
    assert.fail(`npm install ${tarball}: ${install.stderr.slice(-3000)}`);
  }
  await mkdir(path.join(project, 'plugins', 'hello'), { recursive: true });
  await writeFile(path.join(project, 'plugins', 'hello', 'index.ts'), HELLO_PLUGIN);

  const server = spawn(
    'npx',
    ['--offline', 'mcp-toolkit', 'run', '--transport', 'http', '--host', '127.0.0.1', '--port', '0'],
    {
      cwd: project,
      env: env({ MCP_PLUGINS: 'hello', MCP_LOG_LEVEL: 'info' }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  let output = '';
  server.stdout.setEncoding('utf8').on('data', (c: string) => {
    output += c;
  });
  server.stderr.setEncoding('utf8').on('data', (c: string) => {
    output += c;
  });
  // Whatever happens below, the server (npx and its children) is stopped.
  const client = new Client({ name: 'tarball-test', version: '1.0.0' });
  try {
    const url = await listening(server, () => output);
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['greet'],
    );
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    assert.equal(result.isError ?? false, false, JSON.stringify(result));
    assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
  } finally {
    await client.close().catch(() => {});
    await stopGroup(server);
  }
});
