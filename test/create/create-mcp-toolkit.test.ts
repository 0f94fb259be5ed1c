/**
 * create-mcp-toolkit, from its sources: it is released with the toolkit's version (the projects
 * it writes depend on that version); the flags choose the transports, auth, bundled plugins and
 * deploy files; a bad value, a folder that is not empty or a name npm refuses exits 2 naming
 * what to change. (test/e2e/registry-install.test.ts installs and runs what it writes.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pluginNameOf } from '../../packages/create-mcp-toolkit/src/choices.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

const ENTRY = path.join(REPO_ROOT, 'packages/create-mcp-toolkit/src/index.ts');
let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'create-mcp-toolkit-'));
});
after(() => rm(dir, { recursive: true, force: true }));

function create(args: string[]) {
  return spawnSync(process.execPath, [ENTRY, ...args], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

const read = (file: string) => readFile(path.join(dir, file), 'utf8');

test('released with the toolkit: the same version', async () => {
  const root = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  const own = JSON.parse(
    await readFile(path.join(REPO_ROOT, 'packages/create-mcp-toolkit/package.json'), 'utf8'),
  ) as { version: string; bin: Record<string, string> };
  assert.equal(own.version, root.version);
  assert.deepEqual(own.bin, { 'create-mcp-toolkit': './src/index.js' });
});

test('the flags choose the project: api_key auth, a bundled plugin, stdio, every deploy target', async () => {
  const r = create([
    'weather',
    '--transport',
    'stdio',
    '--auth',
    'api_key',
    '--plugins',
    'filesystem',
    '--deploy',
    'fly,k8s,mcpb',
  ]);
  assert.equal(r.status, 0, r.stderr);
  const project = path.join(dir, 'weather');
  const files = (await readdir(project, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => path.relative(project, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
  assert.deepEqual(files, [
    '.dockerignore',
    '.env',
    '.github/workflows/ci.yml',
    '.gitignore',
    'Dockerfile',
    'README.md',
    'fly.toml',
    'k8s/deployment.yaml',
    'k8s/service.yaml',
    'mcp-toolkit.env',
    'package.json',
    'plugins/weather/index.ts',
    'test/weather.test.ts',
  ]);
  const env = await read('weather/mcp-toolkit.env');
  assert.match(env, /^MCP_PLUGINS=weather,filesystem$/m);
  assert.match(env, /^MCP_AUTH=api_key$/m);
  assert.match(await read('weather/.env'), /^MCP_API_KEYS=dev:[0-9a-f]{48}$/m);
  const pkg = JSON.parse(await read('weather/package.json')) as {
    scripts: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  assert.match(pkg.scripts.start ?? '', /run --transport stdio$/);
  assert.equal(pkg.scripts.dev, undefined, 'no HTTP dev server for a stdio-only project');
  assert.match(pkg.scripts.bundle ?? '', /mcp-toolkit\.js bundle$/);
  assert.ok(pkg.devDependencies?.['@anthropic-ai/mcpb']);
  assert.match(await read('weather/.gitignore'), /^\.env$/m);
});

test('bad input exits 2 naming what to change, and writes nothing', async () => {
  await mkdir(path.join(dir, 'taken'));
  await writeFile(path.join(dir, 'taken', 'keep.txt'), 'mine\n');
  const cases: [string[], RegExp][] = [
    [
      ['a', '--yes', '--transport', 'carrier-pigeon'],
      /--transport carrier-pigeon: expected one of http, stdio, both/,
    ],
    [['b', '--yes', '--plugins', 'filesystem,conformance'], /--plugins conformance: expected one or more of/],
    [
      ['c', '--yes', '--deploy', 'heroku'],
      /--deploy heroku: expected one or more of docker, fly, k8s, mcpb, none/,
    ],
    [['taken', '--yes'], /taken exists and is not empty: choose a new folder/],
    [['Bad Name', '--yes'], /"bad name" is not an npm package name/],
    [['d', 'e', '--yes'], /one folder, not 2/],
    [['--yes'], /name the folder to create/],
    [['f', '--bogus'], /Unknown option '--bogus'/],
  ];
  for (const [args, message] of cases) {
    const r = create(args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, message);
    assert.match(r.stderr, /Usage: npm create mcp-toolkit@latest <folder>/);
  }
  const left = (await readdir(dir)).sort();
  assert.deepEqual(
    left,
    ['taken', 'weather'].filter((d) => left.includes(d)),
  );
  assert.equal(await read('taken/keep.txt'), 'mine\n');
});

test('a package name becomes a plugin name', () => {
  assert.equal(pluginNameOf('@acme/Weather_MCP'), 'weather-mcp');
  assert.equal(pluginNameOf('2fast'), 'fast');
  assert.equal(pluginNameOf('___'), 'server');
});
