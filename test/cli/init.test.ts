/**
 * `mcp-toolkit init <name>` on a temporary copy of the repository (git's view of it, with
 * node_modules linked): the scaffolded plugin's own test passes under `node --test`, the
 * plugin loads by name through `doctor`, the files pass `tsc` and `biome check` as written,
 * and the settings table of the docs lists the new setting. Invalid, existing and
 * malformed requests are refused with exit code 2 and nothing written.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { runInit } from '../../src/cli/init.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

const run = promisify(execFile);
let copy: string;
let empty: string;

/** This process's environment without MCP_* settings or the test runner's child marker. */
function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('MCP_') && k !== 'NODE_TEST_CONTEXT') env[k] = v;
  }
  return { ...env, ...extra };
}

async function init(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runInit(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Runs a command in the copy; resolves with its exit code and output, never rejects. */
async function inCopy(args: string[], env = childEnv()): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(args[0]!, args.slice(1), {
      cwd: copy,
      env,
      timeout: 90_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, output: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : 1, output: `${err.stdout}${err.stderr}` };
  }
}

before(async () => {
  copy = await mkdtemp(path.join(os.tmpdir(), 'mcp-init-'));
  empty = await mkdtemp(path.join(os.tmpdir(), 'mcp-init-empty-'));
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO_ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const rel of stdout.split('\0').filter((f) => f !== '')) {
    await mkdir(path.dirname(path.join(copy, rel)), { recursive: true });
    // A file deleted since (or only in the index) is simply not part of the copy.
    await copyFile(path.join(REPO_ROOT, rel), path.join(copy, rel)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
  await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
});

after(async () => {
  await rm(copy, { recursive: true, force: true });
  await rm(empty, { recursive: true, force: true });
});

describe('mcp-toolkit init', () => {
  test('refuses a missing, invalid or extra name, unknown flags and a non-repository folder with 2', async () => {
    const cases: [string[], RegExp][] = [
      [['--dir', copy], /expected one plugin name/],
      [['Demo', '--dir', copy], /not a valid plugin name/],
      [['9lives', '--dir', copy], /not a valid plugin name/],
      [['my_plugin', '--dir', copy], /not a valid plugin name/],
      [['x'.repeat(41), '--dir', copy], /not a valid plugin name/],
      [['../evil', '--dir', copy], /not a valid plugin name/],
      [['demo', 'other', '--dir', copy], /expected one plugin name/],
      [['demo', '--force', '--dir', copy], /Unknown option/],
      [['demo', '--dir', empty], /not an mcp-toolkit repository/],
    ];
    for (const [argv, message] of cases) {
      const r = await init(argv);
      assert.equal(r.code, 2, argv.join(' '));
      assert.match(r.err, message, argv.join(' '));
      assert.equal(r.out, '', 'nothing reported as created');
    }
    assert.ok(
      !existsSync(path.join(copy, 'plugins', 'Demo')) && !existsSync(path.join(copy, 'plugins', 'demo')),
    );
  });

  test('refuses an existing plugin name', async () => {
    const r = await init(['filesystem', '--dir', copy]);
    assert.equal(r.code, 2);
    assert.match(r.err, /a plugin named "filesystem" already exists/);
  });

  test('scaffolds plugins whose own tests pass, that load by name and pass tsc and biome', {
    timeout: 150_000,
  }, async () => {
    const r = await init(['demo-plugin', '--dir', copy]);
    assert.equal(r.code, 0, r.err);
    const files = ['plugins/demo-plugin/index.ts', 'test/plugins/demo-plugin/demo-plugin.test.ts'];
    for (const f of files) assert.match(r.out, new RegExp(`created ${f}`));
    // The starter's own settings table stays as it was: a new plugin never makes it stale.
    for (const doc of ['README.md', 'docs/configuration.md']) {
      assert.doesNotMatch(await readFile(path.join(copy, doc), 'utf8'), /MCP_DEMO_PLUGIN/, doc);
    }
    assert.match(r.out, /settings-table\.ts --plugin demo-plugin/);
    const table = await inCopy([process.execPath, 'scripts/settings-table.ts', '--plugin', 'demo-plugin']);
    assert.equal(table.code, 0, table.output);
    assert.match(table.output, /^\| `MCP_DEMO_PLUGIN_GREETING` \| `Hello` \| /m);
    // The shortest and the longest names: the templates must stay formatted and compile at both ends.
    for (const name of ['a', `${'x'.repeat(30)}-long-name`]) {
      assert.equal((await init([name, '--dir', copy])).code, 0, name);
      files.push(`plugins/${name}/index.ts`, `test/plugins/${name}/${name}.test.ts`);
    }
    const testFiles = files.filter((f) => f.endsWith('.test.ts'));

    // Its own tests, and the starter's settings-table test, which a new plugin must not break.
    const tested = await inCopy([process.execPath, '--test', ...testFiles]);
    const starter = await inCopy([process.execPath, '--test', 'test/config/settings.test.ts']);
    assert.equal(starter.code, 0, starter.output);
    assert.equal(tested.code, 0, tested.output);
    assert.match(tested.output, /ℹ pass 12/);
    assert.match(tested.output, /ℹ fail 0/);

    const doctor = await inCopy(
      [process.execPath, 'bin/mcp-toolkit.js', 'doctor'],
      childEnv({ MCP_PLUGINS: 'demo-plugin', MCP_DEMO_PLUGIN_GREETING: 'Hi' }),
    );
    assert.equal(doctor.code, 0, doctor.output);
    assert.match(doctor.output, /plugin demo-plugin: loaded, settings valid/);
    assert.match(doctor.output, /MCP_DEMO_PLUGIN_GREETING="Hi"/);

    const biome = await inCopy([path.join(copy, 'node_modules', '.bin', 'biome'), 'check', ...files]);
    assert.equal(biome.code, 0, biome.output);
    // Only the new files (and what they import) rather than the whole project: a faster tsc.
    await writeFile(
      path.join(copy, 'tsconfig.init.json'),
      JSON.stringify({ extends: './tsconfig.json', include: files }),
    );
    const tsc = await inCopy([
      process.execPath,
      path.join(copy, 'node_modules', 'typescript', 'bin', 'tsc'),
      '--noEmit',
      '-p',
      'tsconfig.init.json',
    ]);
    assert.equal(tsc.code, 0, tsc.output);
  });

  test('refuses to scaffold the same name twice and leaves the files alone', async () => {
    const file = path.join(copy, 'plugins', 'again', 'index.ts');
    assert.equal((await init(['again', '--dir', copy])).code, 0);
    const before = await readFile(file, 'utf8');
    const r = await init(['again', '--dir', copy]);
    assert.equal(r.code, 2);
    assert.match(r.err, /a plugin named "again" already exists \(plugins\/again\)/);
    assert.equal(await readFile(file, 'utf8'), before);
  });
});
