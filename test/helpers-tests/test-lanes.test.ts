/**
 * `npm test` and `npm run test:all` (scripts/test.ts): every slow-lane entry names files that
 * exist (a renamed file cannot slip into the quick lane unseen), the two lanes split the suite
 * with nothing lost, and a path argument runs just the files under it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { globSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { concurrency, isSlow, runnerArgs, SLOW, testEnv } from '../../scripts/test.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const files = globSync('test/**/*.test.ts', { cwd: ROOT, exclude: ['**/node_modules/**'] }).map((f) =>
  f.replaceAll('\\', '/'),
);

test('each slow-lane entry matches at least one test file', () => {
  for (const prefix of SLOW)
    assert.ok(
      files.some((f) => f.startsWith(prefix)),
      `${prefix} matches no test file`,
    );
});

test('the quick lane keeps the unit tests and leaves the end-to-end ones to test:all', () => {
  assert.equal(isSlow('test/auth/api-key.test.ts'), false);
  assert.equal(isSlow('test/protocol/dispatcher.test.ts'), false);
  assert.equal(isSlow('test/e2e/official-clients.test.ts'), true);
  assert.equal(isSlow('test/fuzz/http.test.ts'), true);
  const quick = files.filter((f) => !isSlow(f));
  assert.ok(quick.length > files.length / 2, `${quick.length} of ${files.length} files in the quick lane`);
});

test('npm test runs the quick lane and test:all every file', () => {
  const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> };
  assert.match(pkg.scripts['test'] ?? '', /node scripts\/test\.ts$/);
  assert.match(pkg.scripts['test:all'] ?? '', /node scripts\/test\.ts --all$/);
  assert.match(readFileSync(`${ROOT}.ci/run`, 'utf8'), /npm run test:all/);
});

test('a path argument runs only the files under it; a path with none is a usage error', () => {
  const ok = spawnSync(process.execPath, ['scripts/test.ts', 'test/base'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, NODE_TEST_CONTEXT: undefined },
  });
  assert.equal(ok.status, 0, ok.stderr);
  const count = globSync('test/base/**/*.test.ts', { cwd: ROOT }).length;
  assert.ok(count > 0);
  assert.match(ok.stderr, new RegExp(`the chosen files, ${count} files?\\b`));
  const none = spawnSync(process.execPath, ['scripts/test.ts', 'test/no-such-folder'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(none.status, 2);
  assert.match(none.stderr, /no test file matches test\/no-such-folder/);
});

test('the test processes get a compile cache, unless the user set or turned off their own', () => {
  const env = testEnv({ PATH: '/bin' });
  assert.match(env.NODE_COMPILE_CACHE ?? '', /node_modules[/\\]\.cache[/\\]mcp-toolkit[/\\]tests$/);
  assert.equal(env.PATH, '/bin');
  assert.equal(testEnv({ NODE_COMPILE_CACHE: '/mine' }).NODE_COMPILE_CACHE, '/mine');
  assert.equal(testEnv({ NODE_DISABLE_COMPILE_CACHE: '1' }).NODE_COMPILE_CACHE, undefined);
});

test('the quick lane runs three files at once; the lanes with the slow end-to-end runs two', () => {
  assert.equal(concurrency('the quick lane'), 3);
  assert.equal(concurrency('every test'), 2);
  assert.equal(concurrency('the slow lane'), 2);
  assert.equal(concurrency('the chosen files'), 2);
});

test('every verdict of files run at once reaches the lane; a file left running after its tests is failed, naming what is open', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lanes-'));
  try {
    // Many quick files at once: where `--test-force-exit` lost verdicts (nodejs/node#64833).
    const FILES = 16;
    const TESTS = 40;
    for (let f = 0; f < FILES; f++) {
      const tests = Array.from({ length: TESTS }, (_, t) => `test('file ${f} test ${t}', () => {});`);
      writeFileSync(
        path.join(dir, `f${f}.test.mjs`),
        `import { test } from 'node:test';\n${tests.join('\n')}\n`,
      );
    }
    const run = (files: string[], env: Record<string, string> = {}) =>
      spawnSync(process.execPath, [...runnerArgs('the quick lane'), ...files], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, NODE_TEST_CONTEXT: undefined, ...env },
      });
    const all = run(Array.from({ length: FILES }, (_, f) => `f${f}.test.mjs`));
    assert.equal(all.status, 0, all.stderr);
    assert.match(all.stdout, new RegExp(`ℹ tests ${FILES * TESTS}\\n`));
    assert.match(all.stdout, new RegExp(`ℹ pass ${FILES * TESTS}\\n`));

    writeFileSync(
      path.join(dir, 'leaks.test.mjs'),
      "import { test } from 'node:test';\nimport net from 'node:net';\n" +
        "test('passes, and leaves a server listening', () => { net.createServer().listen(0, '127.0.0.1'); });\n",
    );
    const leaked = run(['leaks.test.mjs', 'f0.test.mjs'], { MCP_TEST_FILE_EXIT_GRACE_MS: '1000' });
    assert.equal(leaked.status, 1, leaked.stdout);
    // The runner shows a file's stderr among its verdicts.
    assert.match(
      leaked.stdout + leaked.stderr,
      /leaks\.test\.mjs: still running 1 s after its tests ended; open: .*TCPServerWrap/,
    );
    assert.match(leaked.stdout, /✖ leaks\.test\.mjs/);
    assert.match(leaked.stdout, new RegExp(`ℹ pass ${TESTS + 1}\\n`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
