/**
 * The benchmark's instruction figures (issue 51, item 4): bench/run.ts counts main-thread
 * instructions per request of plain, ratio 0, ratio 1 and the raw route under callgrind and
 * computes the ratios of the "Done means" (ratio 0 / plain and plain / raw route, each
 * at most 1.15). Small counts, so the figures mean nothing here: only that they are produced
 * and the ratios computed is checked, never a value.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { instructionRatios, valgrindMissing } from '../../bench/harness/instructions.ts';
import type { Results } from '../../bench/harness/report.ts';
import { toMarkdown } from '../../bench/to-markdown.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('the ratios of the Done means come from the counted figures, null where a side was not counted', () => {
  const figure = (server: string, perRequest: number | null) => ({
    server,
    perRequest,
    otherThreadsPerRequest: perRequest === null ? null : 1,
  });
  const ratios = instructionRatios([
    figure('plain', 200_000),
    figure('ratio0', 260_000),
    figure('ratio1', 300_000),
    figure('raw', 180_000),
  ]);
  assert.deepEqual(
    ratios.map((r) => [r.name, r.value === null ? null : Number(r.value.toFixed(3)), r.limit, r.met]),
    [
      ['ratio 0 / plain', 1.3, 1.15, false],
      ['plain / raw route', 1.111, 1.15, true],
      ['ratio 1 / plain', 1.5, null, null],
    ],
  );
  assert.deepEqual(
    instructionRatios([figure('plain', 200_000), figure('ratio0', null)]).map((r) => [r.value, r.met]),
    [[null, null]],
  );
});

const missing = valgrindMissing();

// The knobs of the run below, which mean nothing for the figures (only that they are produced):
// under valgrind a server's start and each counted request take long, so two servers (the
// two sides of one ratio) and few requests keep the test near a minute on a quiet machine.
const COUNTED_SERVERS = ['plain', 'raw'];
const COUNTED_REQUESTS = 5;
const WARMUP_REQUESTS = 2;

test('bench/run.ts reports instructions per request beside the req/s ratios', {
  skip: missing,
  timeout: 1_500_000,
}, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-instructions-'));
  try {
    const out = join(dir, 'results.json');
    const args = [
      'bench/run.ts',
      '--scenarios',
      '1',
      '--no-extras',
      '--duration',
      '1',
      '--warmup',
      '0',
      '--rounds',
      '1',
      '--processes',
      '1',
      '--connections',
      '2',
      '--instructions',
      String(COUNTED_REQUESTS),
      '--instructions-warmup',
      String(WARMUP_REQUESTS),
      '--instructions-servers',
      COUNTED_SERVERS.join(','),
      '--out',
      out,
    ];
    // Servers start under valgrind side by side: minutes on a loaded machine.
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (resolve) =>
        execFile(process.execPath, args, { cwd: ROOT, timeout: 1_400_000 }, (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : 1, stdout, stderr }),
        ),
    );
    assert.equal(code, 0, stderr.slice(-3000));
    const results = JSON.parse(await readFile(out, 'utf8')) as Results;
    const ins = results.instructions;
    assert.ok(ins, 'no instruction figures in the results');
    assert.equal(ins.skipped, undefined);
    assert.deepEqual(
      ins.figures.map((f) => f.server),
      COUNTED_SERVERS,
    );
    for (const f of ins.figures) {
      assert.equal(f.error, undefined, `${f.server}: ${f.error}`);
      assert.ok(f.perRequest !== null && f.perRequest > 0, `${f.server}: ${f.perRequest}`);
    }
    // A ratio where both its sides were counted.
    assert.deepEqual(
      ins.ratios.map((r) => r.name),
      ['plain / raw route'],
    );
    for (const r of ins.ratios) assert.ok(r.value !== null && r.value > 0, `${r.name}: ${r.value}`);
    for (const r of ins.ratios) assert.equal(typeof r.met, 'boolean', r.name);
    // Printed beside the req/s ratios, and in the Markdown tables of docs/performance.md.
    assert.match(stdout, /Ratios against the targets[\s\S]*Instructions per request \(callgrind/);
    assert.match(stdout, /plain \/ raw route\s+\d+\.\d{3}\s+<= 1\.15\s+(met|MISSED)/);
    assert.match(
      toMarkdown(results),
      /\| plain \/ raw route \| \d+\.\d{3} \| ≤ 1\.15: (met|\*\*missed\*\*) \|/,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
