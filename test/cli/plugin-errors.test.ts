/**
 * Errors that say where: a plugin that does not import names its file, line and column and
 * the cause; a register() that throws names the plugin and the line in the plugin's code; a
 * name registered by two plugins names both. Each stops `run` with exit code 2, and doctor
 * reports the same, naming the plugin.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { doctor } from '../../src/cli/doctor.ts';
import { CLI, childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'mcp-plugin-errors-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const api = pathToFileURL(path.join(REPO_ROOT, 'src/index.ts')).href;

/** Writes `<dir>/<name>/index.ts` and returns its MCP_PLUGINS reference (relative to dir). */
function plugin(name: string, lines: string[]): string {
  mkdirSync(path.join(dir, name), { recursive: true });
  writeFileSync(path.join(dir, name, 'index.ts'), `${lines.join('\n')}\n`);
  return `./${name}/index.ts`;
}

const broken = plugin('broken', [
  `import { definePlugin } from '${api}';`,
  'const a = ;',
  'export default a;',
]);
const atImport = plugin('at-import', [
  'function boot(): never {',
  "  throw new TypeError('no config file');",
  '}',
  'export default boot();',
]);
const throwing = plugin('throwing', [
  `import { definePlugin } from '${api}';`,
  'export default definePlugin({',
  "  name: 'throwing',",
  '  register() {',
  "    throw new Error('boom in register');",
  '  },',
  '});',
]);
const badTool = plugin('bad-tool', [
  `import { definePlugin, defineTool } from '${api}';`,
  'export default definePlugin({',
  "  name: 'bad-tool',",
  '  register(app) {',
  "    app.add(defineTool({ name: 'no spaces allowed', description: 'x' }, async () => 'x'));",
  '  },',
  '});',
]);
const greeter = (name: string) =>
  plugin(name, [
    `import { definePlugin, defineTool } from '${api}';`,
    'export default definePlugin({',
    `  name: '${name}',`,
    '  register(app) {',
    "    app.add(defineTool({ name: 'greet', description: 'Greets' }, async () => 'hi'));",
    '  },',
    '});',
  ]);
const notReady = plugin('not-ready', [
  `import { definePlugin } from '${api}';`,
  'export default definePlugin({',
  "  name: 'not-ready',",
  '  register(app) {',
  '    app.onReady(async () => {',
  "      throw new Error('database unreachable');",
  '    });',
  '  },',
  '});',
]);
const first = greeter('first');
const second = greeter('second');

function run(plugins: string): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, 'run'], {
    cwd: dir,
    // What a terminal shows (on a log stream the same message is a JSON line).
    env: childEnv({
      MCP_PLUGINS: plugins,
      MCP_FILESYSTEM_ROOT: path.join(dir, 'workspace'),
      MCP_LOG_FORMAT: 'pretty',
    }),
    input: '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stderr: r.stderr };
}

describe('run: a plugin that fails', () => {
  test('to parse: file, line:column, the cause and the line itself; exit 2', () => {
    const r = run(broken);
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /Plugin "\.\/broken\/index\.ts" failed to load: broken\/index\.ts:2:11: SyntaxError: /,
    );
    assert.match(r.stderr, /\n {4}const a = ;\n {14}\^/);
  });

  test('at import time: the first frame in its code and the cause; exit 2', () => {
    const r = run(atImport);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /failed to load: at-import\/index\.ts:2:9: TypeError: no config file/);
  });

  test('in register(): the plugin name, the cause and its line; exit 2', () => {
    const r = run(throwing);
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /Plugin "throwing" failed in register\(\): Error: boom in register\n {4}at throwing\/index\.ts:5:11/,
    );
  });

  test('with a definition the toolkit refuses: the line in the plugin, not in the toolkit', () => {
    const r = run(badTool);
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /Plugin "bad-tool" failed in register\(\): Tool name "no spaces allowed" is invalid/,
    );
    assert.match(r.stderr, /\n {4}at bad-tool\/index\.ts:5:\d+/);
  });

  test('in an onReady hook: the plugin name, the cause and its line; exit 2', () => {
    const r = run(notReady);
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /Plugin "not-ready" failed in onReady\(\): Error: database unreachable\n {4}at not-ready\/index\.ts:6:13/,
    );
  });

  test('registering a tool another plugin registered: both plugins named; exit 2', () => {
    const r = run(`${first},${second}`);
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /Plugin "second" failed in register\(\): Duplicate tool "greet": registered by plugin "first" and again by plugin "second"/,
    );
  });
});

describe('doctor: a plugin that fails', () => {
  const cwd = process.cwd();
  const check = async (plugins: string) => {
    const lines: string[] = [];
    process.chdir(dir);
    try {
      const code = await doctor({ MCP_PLUGINS: plugins }, (line) => lines.push(line));
      return { code, failed: lines.filter((l) => l.startsWith('✗')).join('\n') };
    } finally {
      process.chdir(cwd);
    }
  };

  test('to import: names it, with file and line', async () => {
    const r = await check(broken);
    assert.equal(r.code, 1);
    assert.match(r.failed, /broken\/index\.ts:2:11: SyntaxError/);
  });

  test('in register(): names the plugin and the line', async () => {
    const r = await check(throwing);
    assert.equal(r.code, 1);
    assert.match(r.failed, /Plugin "throwing" failed in register\(\): Error: boom in register/);
  });

  test('with a duplicate: names both plugins', async () => {
    const r = await check(`${first},${second}`);
    assert.equal(r.code, 1);
    assert.match(r.failed, /registered by plugin "first" and again by plugin "second"/);
  });
});
