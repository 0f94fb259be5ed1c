/**
 * bench/profile-summary.ts on two small hand-made profiles: areas by package, and the side by
 * side comparison in µs per request that docs/performance.md relies on.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compareProfiles, type Profile, summarise } from '../../bench/profile-summary.ts';

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url, lineNumber: 0 },
  children,
});

/** A root with our dispatcher and, optionally, a tracer frame; `ms` of self time each. */
function profile(dispatchMs: number, tracerMs: number): Profile {
  const nodes = [
    frame(1, '(root)', '', [2, 3, 4]),
    frame(2, 'handle', 'file:///app/src/protocol/dispatcher.ts'),
    frame(3, 'startSpan', 'file:///app/node_modules/@opentelemetry/sdk-trace/dist/Tracer.mjs'),
    frame(4, '(idle)', ''),
  ];
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  const add = (id: number, ms: number) => {
    for (let i = 0; i < ms; i++) {
      samples.push(id);
      timeDeltas.push(1000);
    }
  };
  add(2, dispatchMs);
  add(3, tracerMs);
  add(4, 50);
  return { nodes, samples, timeDeltas, startTime: 0, endTime: 0 } as Profile;
}

test('summarise sorts self time into areas and leaves idle out', () => {
  const s = summarise(profile(30, 10));
  assert.equal(Math.round(s.totalMs), 40);
  assert.deepEqual(
    s.areas.map((r) => [r.name, Math.round(r.ms)]),
    [
      ['src/protocol', 30],
      ['@opentelemetry/sdk-trace', 10],
    ],
  );
});

test('compareProfiles gives µs per request on each side, the largest growth first', () => {
  // A: 1,000 requests in 30 ms of dispatch. B: 500 requests, 30 ms of dispatch and 10 of tracer.
  const result = compareProfiles(profile(30, 0), profile(30, 10), [1000, 500]);
  assert.deepEqual(
    result.totals.map((t) => Math.round(t)),
    [30, 80],
  );
  assert.deepEqual(
    result.areas.map((d) => [d.name, Math.round(d.a), Math.round(d.b)]),
    [
      ['src/protocol', 30, 60],
      ['@opentelemetry/sdk-trace', 0, 20],
    ],
  );
});

test('the command line prints its usage for --help, and names a profile it cannot read', () => {
  const script = fileURLToPath(new URL('../../bench/profile-summary.ts', import.meta.url));
  const help = spawnSync(process.execPath, [script, '--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0);
  assert.match(help.stderr, /^usage: node bench\/profile-summary\.ts FILE\.cpuprofile/);
  const missing = spawnSync(process.execPath, [script, '/nonexistent/x.cpuprofile'], { encoding: 'utf8' });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /cannot read the profile \/nonexistent\/x\.cpuprofile: ENOENT/);
});
