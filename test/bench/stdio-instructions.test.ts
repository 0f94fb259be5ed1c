/**
 * The stdio instruction figures (issue 51, item 5): bench/stdio-instructions.ts counts the
 * main-thread instructions per request of our stdio server and of the bare line echo under
 * callgrind, and their ratio. Few requests, so the figures mean nothing here: only that they
 * are produced, every answer checked, is asserted, never a value.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { valgrindMissing } from '../../bench/harness/instructions.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const missing = valgrindMissing();

test('stdio-instructions.ts counts ours and the echo, and their ratio', {
  skip: missing,
  timeout: 1_500_000,
}, async () => {
  const args = ['bench/stdio-instructions.ts', '--requests', '5', '--warmup', '2'];
  // Two servers start under valgrind side by side: minutes on a loaded machine.
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
    (resolve) =>
      execFile(process.execPath, args, { cwd: ROOT, timeout: 1_400_000 }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : 1, stdout, stderr }),
      ),
  );
  assert.equal(code, 0, `${stdout.slice(-2000)}\n${stderr.slice(-2000)}`);
  const last = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
    wire: string;
    figures: { server: string; perRequest: number | null; error?: string }[];
    ratio: number | null;
  };
  assert.equal(last.wire, '2025');
  assert.deepEqual(
    last.figures.map((f) => f.server),
    ['ours-stdio', 'echo'],
  );
  for (const f of last.figures) {
    assert.equal(f.error, undefined, `${f.server}: ${f.error}`);
    assert.ok(f.perRequest !== null && f.perRequest > 0, `${f.server}: ${f.perRequest}`);
  }
  assert.ok(last.ratio !== null && last.ratio > 0, String(last.ratio));
  assert.match(stdout, /ours-stdio \/ echo: \d+\.\d{3} instructions per request/);
});

test('stdio-instructions.ts refuses an unknown server and a wrong wire with exit 2', () => {
  for (const [flag, value, message] of [
    ['--servers', 'nope', /unknown server nope/],
    ['--wire', '2024', /--wire: 2025 or 2026/],
  ] as const) {
    const run = spawnSync(process.execPath, ['bench/stdio-instructions.ts', flag, value], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, message);
  }
});
