/**
 * bench/per-request.ts for a few requests: each server named is started, answers every
 * checked request, and gets a CPU figure per request; the last line is the JSON of the
 * figures (docs/performance.md, "How to reproduce"). No timed assertion.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test("per-request.ts: a figure per server and run, every answer checked, with --gc the collector's", () => {
  const run = spawnSync(
    process.execPath,
    [
      'bench/per-request.ts',
      '--servers',
      'plain,ratio0',
      '--requests',
      '50',
      '--warmup',
      '10',
      '--repeat',
      '1',
      '--gc',
    ],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );
  assert.equal(run.status, 0, run.stderr);
  const figures = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '[]') as {
    server: string;
    run: number;
    cpuUsPerRequest: number;
    threadsUsPerRequest: Record<string, number>;
    gc: { allocatedBytes: number; promotedBytes: number; pauseUs: number };
  }[];
  assert.deepEqual(
    figures.map((f) => f.server),
    ['plain', 'ratio0'],
  );
  for (const f of figures) {
    assert.ok(Number.isFinite(f.cpuUsPerRequest) && f.cpuUsPerRequest >= 0, JSON.stringify(f));
    assert.ok(Number.isFinite(f.threadsUsPerRequest.MainThread), JSON.stringify(f));
    // 50 requests may fit between two collections: only that the figures are there.
    for (const key of ['allocatedBytes', 'promotedBytes', 'pauseUs'] as const)
      assert.ok(Number.isFinite(f.gc[key]) && f.gc[key] >= 0, JSON.stringify(f));
  }
});

test('per-request.ts refuses an unknown server', () => {
  const run = spawnSync(process.execPath, ['bench/per-request.ts', '--servers', 'nope'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /unknown server nope/);
});

test('the bench scripts answer --help with their usage and an unknown option with exit 2', () => {
  for (const script of ['bench/per-request.ts', 'bench/sampled-out.ts', 'bench/threads.ts']) {
    const help = spawnSync(process.execPath, [script, '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(help.status, 0, `${script} --help: ${help.stderr}`);
    assert.match(help.stdout, new RegExp(`^node ${script.replace('.', '\\.')} \\[`), script);
    const wrong = spawnSync(process.execPath, [script, '--bogus'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(wrong.status, 2, `${script} --bogus: ${wrong.stderr}`);
    assert.match(wrong.stderr, /^Unknown option '--bogus'.*\n\nnode bench\//, script);
    assert.doesNotMatch(wrong.stderr, /at .*\(node:/, `${script}: a stack trace`);
  }
});

test('per-request.ts --profile with --repeat 2 keeps one profile per process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'per-request-profiles-'));
  try {
    const args = [
      '--servers',
      'plain',
      '--requests',
      '20',
      '--warmup',
      '5',
      '--repeat',
      '2',
      '--profile',
      dir,
    ];
    const run = spawnSync(process.execPath, ['bench/per-request.ts', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(readdirSync(dir).sort(), ['plain-1.cpuprofile', 'plain-2.cpuprofile']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
