/**
 * How the harness closes a server's result (bench/harness/figures.ts `finish`): wrong answers
 * under load, and a check that failed after the rounds (scenario 4's 401 check), both mark it
 * failed, with every reason kept, so its ratios are left out.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { finish, type RoundFigures, type ServerResult } from '../../bench/harness/figures.ts';

const round = (failures: number): RoundFigures => ({
  requests: 1000,
  durationSec: 1,
  rps: 1000,
  p50Ms: 1,
  p99Ms: 2,
  cpuUsPerReq: 50,
  failures,
  serverBusy: 0.99,
  loadBusy: 0.4,
});
const result = (over: Partial<ServerResult>): ServerResult => ({
  id: 'ours-secured',
  label: 'secured',
  status: 'ok',
  notes: [],
  rounds: [round(0), round(0)],
  ...over,
});

test('a clean result stays ok and gets its medians', () => {
  const done = finish(result({}));
  assert.equal(done.status, 'ok');
  assert.equal(done.error, undefined);
  assert.equal(done.median?.rps, 1000);
});

test('a check that failed after the rounds keeps the result failed, with its reason', () => {
  const why = 'auth is not enforced: a request without the API key got HTTP 200';
  const done = finish(result({ status: 'failed', error: why }));
  assert.equal(done.status, 'failed');
  assert.equal(done.error, why);
});

test('wrong answers fail a result, and add to a failed check', () => {
  assert.equal(
    finish(result({ rounds: [round(3), round(0)] })).error,
    '3 responses were not a correct answer',
  );
  const both = finish(result({ status: 'failed', error: 'check failed', rounds: [round(1)] }));
  assert.equal(both.status, 'failed');
  assert.equal(both.error, 'check failed; 1 responses were not a correct answer');
});
