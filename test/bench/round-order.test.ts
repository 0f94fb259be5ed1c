/**
 * The harness's round order (bench/harness/figures.ts): every server runs once per round, and
 * the order rotates, so no server always runs first.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { roundOrder } from '../../bench/harness/figures.ts';

test('each round holds every server once, and each server leads a round in turn', () => {
  const servers = ['ours', 'sdk', 'raw', 'secured', 'edge', 'traced'];
  const rounds = Array.from({ length: 10 }, (_, i) => roundOrder(servers, i));
  for (const order of rounds) assert.deepEqual([...order].sort(), [...servers].sort());
  assert.deepEqual(rounds[0], servers);
  assert.deepEqual(rounds[1], ['sdk', 'raw', 'secured', 'edge', 'traced', 'ours']);
  assert.deepEqual(
    rounds.slice(0, 6).map((order) => order[0]),
    servers,
  );
  assert.deepEqual(roundOrder([], 3), []);
  assert.deepEqual(servers, ['ours', 'sdk', 'raw', 'secured', 'edge', 'traced'], 'the input is not changed');
});
