/**
 * The kit for people who never clone: build (the package, as JavaScript and declarations, in
 * dist/), `npm pack ./dist`, install the tarball into a fresh project from the local npm cache,
 * then run `npx mcp-toolkit test` and the programmatic API (`@mcp-toolkit/server/testing`) from
 * there, against the installed package's own filesystem server over stdio; and the installed
 * bin, given an OTLP endpoint, exports its spans (the SDK pipeline works from the build, not
 * only from src/).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { docNpxCommands } from '../helpers/doc-blocks.ts';
import { startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { packageBuild } from '../helpers/package-build.ts';
import { REPO_ROOT } from './helpers/fixtures.ts';

// npm and npx come from PATH, run by this Node (its folder goes first on the children's PATH).
const NODE_BIN = path.dirname(process.execPath);
const npm = 'npm';
const npx = 'npx';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    // NODE_TEST_CONTEXT would make a child `node --test` report to this runner instead of stdout.
    const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
    const child = spawn(command, args, {
      cwd,
      env: { ...inherited, PATH: `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ''}`, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** What package.json must say: the clone's entry points are the sources, the build is packed from dist/. */
function missingEntries(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    private?: boolean;
    scripts?: Record<string, string>;
    exports?: Record<string, unknown>;
  };
  const missing: string[] = [];
  if (!pkg.scripts?.build) missing.push('scripts.build');
  if (pkg.private !== true) missing.push('private: the clone itself is not what gets published');
  if (pkg.exports?.['.'] !== './src/index.ts') missing.push('exports["."]: ./src/index.ts');
  if (pkg.exports?.['./testing'] !== './src/testing/index.ts') missing.push('exports["./testing"]');
  return missing;
}

let dir: string | undefined;
/** The consumer project the tarball was installed into, once the first test got that far. */
let installed: string | undefined;
after(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

// It builds, packs, installs and runs the kit twice: 291 s at a load average of 25, so the
// bound leaves room for a busy two-core machine.
test('the packed package works installed: npx mcp-toolkit test and the programmatic API', {
  timeout: 600_000,
}, async () => {
  assert.deepEqual(missingEntries(), [], 'package.json packs the build (see docs/testing.md, "Packaging")');
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-kit-pack-'));

  // The build registry-install.test.ts publishes too: made once for both.
  const built = await packageBuild();
  assert.ok(existsSync(path.join(built, 'dist/src/testing/index.js')));
  assert.ok(existsSync(path.join(built, 'dist/src/testing/index.d.ts')));

  const pack = await run(npm, ['pack', './dist', '--json', '--pack-destination', dir], built);
  assert.equal(pack.code, 0, pack.stderr);
  const [packed] = JSON.parse(pack.stdout) as { name: string; filename: string; files: { path: string }[] }[];
  assert.ok(packed);
  assert.equal(packed.name, '@mcp-toolkit/server');
  const paths = packed.files.map((f) => f.path);
  assert.ok(paths.includes('src/cli/main.js'));
  assert.ok(paths.includes('bin/mcp-toolkit.js'));
  // With TypeScript in the package, bin would pick sources Node cannot run under node_modules.
  assert.deepEqual(
    paths.filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts')),
    [],
  );

  const project = path.join(dir, 'project');
  await mkdir(project);
  await writeFile(
    path.join(project, 'package.json'),
    '{ "name": "consumer", "private": true, "type": "module" }\n',
  );
  const tarball = path.join(dir, packed.filename);
  let install = await run(npm, ['install', '--offline', '--no-audit', '--no-fund', tarball], project);
  if (install.code !== 0)
    install = await run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], project);
  assert.equal(install.code, 0, install.stderr);
  installed = project;

  const server = ['node_modules/@mcp-toolkit/server/bin/mcp-toolkit.js', 'run', '--transport', 'stdio'];
  const env = {
    MCP_PLUGINS: 'filesystem',
    MCP_FILESYSTEM_ROOT: path.join(project, 'ws'),
    MCP_LOG_LEVEL: 'warn',
  };

  await writeFile(
    path.join(project, 'live.test.mjs'),
    `import { conformanceReport, registerLiveTests } from '@mcp-toolkit/server/testing';
import { test } from 'node:test';
import assert from 'node:assert/strict';
const server = { command: process.execPath, args: ${JSON.stringify(server)} };
test('conformance report', async () => {
  const report = await conformanceReport(server);
  assert.equal(report.ok, true, JSON.stringify(report.checks.filter((c) => c.status === 'fail')));
});
registerLiveTests(server, { strict: true });
`,
  );
  const api = await run(process.execPath, ['--test', '--test-reporter=tap', 'live.test.mjs'], project, env);
  assert.equal(api.code, 0, api.stdout.slice(-3000) + api.stderr);
  assert.match(api.stdout, /ok \d+ - conformance report/);
  assert.match(api.stdout, /ok \d+ - test_read_file_example_0/);

  const help = await run(npx, ['mcp-toolkit', 'test', '--help'], project);
  assert.match(help.stdout, /--reporter/);
  // Every `npx mcp-toolkit <command>` line of the docs reaches the installed command.
  for (const command of docNpxCommands()) {
    const usage = await run(npx, ['--offline', 'mcp-toolkit', command, '--help'], project);
    assert.equal(usage.code, 0, `npx mcp-toolkit ${command} --help: ${usage.stderr}`);
    assert.match(usage.stdout, new RegExp(`^Usage: mcp-toolkit ${command}\\b`));
  }
  const cli = await run(
    npx,
    ['mcp-toolkit', 'test', '--strict', '--reporter', 'tap', '--', process.execPath, ...server],
    project,
    env,
  );
  assert.equal(cli.code, 0, cli.stdout.slice(-3000) + cli.stderr);
  assert.match(cli.stdout, /# fail 0$/m);
  assert.match(cli.stdout, /ok \d+ - test_write_file_has_examples/);
});

test('the installed bin exports spans to an OTLP endpoint', { timeout: 120_000 }, async (t) => {
  if (installed === undefined) return t.skip('the package did not install (see the test above)');
  const receiver = await startOtlpReceiver();
  t.after(() => receiver.close());
  const lines = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'pack', version: '1' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ];
  const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
  const child = spawn(
    process.execPath,
    ['node_modules/@mcp-toolkit/server/bin/mcp-toolkit.js', 'run', '--transport', 'stdio'],
    {
      cwd: installed,
      env: {
        ...inherited,
        MCP_PLUGINS: 'filesystem',
        MCP_FILESYSTEM_ROOT: path.join(installed, 'ws'),
        MCP_LOG_LEVEL: 'warn',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'packed',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  let stdout = '';
  const listed = new Promise<void>((resolve) => {
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      if (stdout.includes('"id":2')) resolve();
    });
  });
  for (const line of lines) child.stdin.write(`${JSON.stringify(line)}\n`);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    listed,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no tools/list answer in 30 s; stderr: ${stderr}`)), 30_000);
    }),
  ]).finally(() => clearTimeout(timer));
  // End of stdin stops the server, which flushes its spans.
  child.stdin.end();
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  assert.equal(code, 0, stderr);
  const spans = await receiver.waitForSpans((s) => s.resource['service.name'] === 'packed', 10_000, 2);
  assert.deepEqual(spans.map((s) => s.name).sort(), ['initialize', 'tools/list']);
  assert.doesNotMatch(stderr, /worker|export failing/i);
});
