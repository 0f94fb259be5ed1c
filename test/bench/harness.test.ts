/**
 * Smoke test of the benchmark harness (issue 6): it runs end to end with a very short
 * duration and writes a results file with figures for every server. No timed assertions:
 * the figures of a one-second round on a shared machine mean nothing, only their presence does.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Results } from '../../bench/harness/report.ts';
import { hasWrk } from '../../bench/harness/wrk-load.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Runs one of the bench scripts with this Node; resolves with its exit code and output. */
function runScript(
  args: string[],
  timeout = 55_000,
  maxBuffer = 4 * 1024 * 1024,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, timeout, maxBuffer }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });
}

/** One short round per server, no warm-up: a smoke run. */
// Instruction counts under valgrind take minutes: test/bench/instructions.test.ts runs them.
const SHORT = [
  '--duration',
  '1',
  '--warmup',
  '0',
  '--rounds',
  '1',
  '--connections',
  '2',
  '--instructions',
  '0',
];

/**
 * `node bench/run.ts ARGS`. About 50 s on a quiet machine, more than 110 s at a load average of
 * 40 (every server is started, warmed and measured in turn): the bound leaves room for that.
 */
const run = (args: string[]) => runScript(['bench/run.ts', ...args], 360_000, 16 * 1024 * 1024);

function assertMeasured(results: Results, scenario: string, server: string): void {
  const r = results.scenarios[scenario]?.servers[server];
  assert.ok(r, `scenario ${scenario} has no result for ${server}`);
  assert.equal(r.status, 'ok', `scenario ${scenario}, ${server}: ${r.status} ${r.error ?? ''}`);
  assert.equal(r.rounds.length, 1);
  assert.ok(r.median, `scenario ${scenario}, ${server}: no medians`);
  for (const [name, value] of Object.entries(r.median)) {
    assert.ok(Number.isFinite(value) && value >= 0, `scenario ${scenario}, ${server}: ${name} is ${value}`);
  }
  assert.ok(r.median.rps > 0, `scenario ${scenario}, ${server}: no requests answered`);
  assert.equal(r.rounds[0]!.failures, 0);
}

let dir: string | undefined;
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('the harness runs every scenario and writes figures for every server', {
  timeout: 400_000,
}, async () => {
  dir = await mkdtemp(join(tmpdir(), 'bench-smoke-'));
  const out = join(dir, 'results.json');
  const { code, stdout, stderr } = await run([...SHORT, '--sessions', '20', '--samples', '1', '--out', out]);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /Ratios against the targets/);

  const results = JSON.parse(await readFile(out, 'utf8')) as Results;
  assert.equal(typeof results.machine.nproc, 'number');
  // wrk by default where it is installed (as .ci/run does), else autocannon.
  assert.equal(results.options.load, hasWrk() ? 'wrk' : 'autocannon');
  for (const server of ['ours', 'sdk', 'tmcp', 'raw']) assertMeasured(results, '1', server);
  for (const server of ['ours', 'sdk', 'sdk-session']) assertMeasured(results, '2', server);
  for (const server of ['ours', 'sdk', 'echo']) assertMeasured(results, '3', server);
  // Scenario 4 at sample ratios 1, 0.1 and 0 (and 0 without metrics), the edge alone, and the anchor.
  for (const server of ['ours', 'sampled', 'unsampled', 'unsampled-nometrics', 'edge', 'raw-otel'])
    assertMeasured(results, '4', server);
  // Each traced server's note counts what the OTLP sink received from it alone (its own base URL).
  const notes = (server: string) => results.scenarios['4']?.servers[server]?.notes.join('\n') ?? '';
  assert.match(notes('ours'), /from this server: \{[^}]*"\/ours-secured\/v1\/traces":[1-9]/);
  assert.doesNotMatch(notes('ours'), /ours-sampled|raw-otel/);
  assert.match(notes('raw-otel'), /from this server: \{[^}]*"\/raw-otel\/v1\/traces":[1-9]/);
  assert.match(notes('unsampled-nometrics'), /received nothing from this server, as expected/);

  const names = results.ratios.map((r) => r.name);
  assert.equal(names.length, 13);
  assert.ok(names.includes('scenario 1: ours / tmcp'), names.join(', '));
  for (const r of results.ratios) {
    assert.ok(r.value !== null && Number.isFinite(r.value), `${r.name} was not computed`);
  }

  const memory = new Map(results.memory.map((m) => [m.label, m]));
  for (const m of results.memory.filter((x) => x.id !== 'sdk')) {
    assert.equal(m.status, 'ok', `${m.label}: ${m.error ?? ''}`);
    assert.ok(Number.isFinite(m.perSessionKiB) && (m.rssAfterKiB ?? 0) > 0);
  }
  assert.equal(memory.size, 3);
  assert.deepEqual(
    results.startup.map((s) => [s.id, s.status]),
    [
      ['ours', 'ok'],
      ['sdk', 'ok'],
      ['echo', 'ok'],
    ],
  );
  for (const s of results.startup) assert.ok((s.medianMs ?? 0) > 0);
});

test('with --processes the rounds of each HTTP server run on that many processes in turn', {
  timeout: 90_000,
}, async () => {
  dir ??= await mkdtemp(join(tmpdir(), 'bench-smoke-'));
  const out = join(dir, 'processes.json');
  const args = [
    '--duration',
    '1',
    '--warmup',
    '0',
    '--rounds',
    '3',
    '--processes',
    '2',
    '--connections',
    '2',
    '--instructions',
    '0',
  ];
  const { code, stderr } = await run([...args, '--scenarios', '1', '--no-extras', '--out', out]);
  assert.equal(code, 0, stderr);
  const results = JSON.parse(await readFile(out, 'utf8')) as Results;
  for (const server of ['ours', 'sdk', 'tmcp', 'raw']) {
    const r = results.scenarios['1']?.servers[server];
    assert.equal(r?.rounds.length, 3, server);
    assert.equal(r?.processes, 2, `${server}: its rounds ran on ${r?.processes} processes`);
  }
});

test('with --load autocannon the harness measures scenario 1 the same way', { timeout: 60_000 }, async () => {
  dir ??= await mkdtemp(join(tmpdir(), 'bench-smoke-'));
  const out = join(dir, 'autocannon.json');
  const { code, stderr } = await run([
    '--load',
    'autocannon',
    '--scenarios',
    '1',
    '--no-extras',
    ...SHORT,
    '--out',
    out,
  ]);
  assert.equal(code, 0, stderr);
  const results = JSON.parse(await readFile(out, 'utf8')) as Results;
  assert.equal(results.options.load, 'autocannon');
  for (const server of ['ours', 'sdk', 'tmcp', 'raw']) assertMeasured(results, '1', server);
});

test('the micro-benchmarks of the hot path run and report every part', { timeout: 60_000 }, async () => {
  const { code, stdout, stderr } = await runScript(['bench/micro.ts', '--quick']);
  assert.equal(code, 0, stderr);
  const report = JSON.parse(stdout) as { usPerOp: Record<string, number> };
  const parts = Object.entries(report.usPerOp);
  assert.equal(parts.length, 17, Object.keys(report.usPerOp).join(', '));
  // A quick run is too short for thread CPU clocks to see the cheapest parts: >= 0, not > 0.
  for (const [name, us] of parts) assert.ok(Number.isFinite(us) && us >= 0, `${name}: ${us}`);
});

test('the per-thread CPU report runs a traced server and names its threads', {
  timeout: 60_000,
}, async () => {
  const { code, stdout, stderr } = await runScript([
    'bench/threads.ts',
    '--traced',
    '--edge',
    '--rounds',
    '1',
    '--duration',
    '1',
    '--connections',
    '2',
  ]);
  assert.equal(code, 0, stderr);
  const report = JSON.parse(stdout) as {
    traced: boolean;
    rounds: { rps: number; usPerRequest: Record<string, number> }[];
  };
  assert.equal(report.traced, true);
  assert.equal(report.rounds.length, 1);
  const [only] = report.rounds;
  assert.ok(only && only.rps > 0);
  // The request thread is there, by name (it runs the SDK's span processor and exporter too).
  assert.ok((only.usPerRequest.MainThread ?? 0) > 0, JSON.stringify(only.usPerRequest));
});
