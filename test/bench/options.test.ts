/**
 * bench/run.ts's command line: how many processes of each HTTP server the rounds run on, and how many idle sessions the memory figure opens.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseOptions } from '../../bench/harness/options.ts';

test('the rounds run on three processes of each HTTP server unless told otherwise', () => {
  assert.equal(parseOptions([]).processes, 3);
  assert.equal(parseOptions(['--processes', '5']).processes, 5);
  assert.throws(() => parseOptions(['--processes', '0']), /--processes: expected a number, got 0/);
  assert.throws(() => parseOptions(['--processes', 'many']), /--processes: expected a number, got many/);
});

test('with --profile one process each, so that no new process overwrites the profile, unless asked', () => {
  assert.equal(parseOptions(['--profile', '/tmp/profiles']).processes, 1);
  assert.equal(parseOptions(['--profile', '/tmp/profiles', '--processes', '2']).processes, 2);
});

test('the memory figure opens 4,000 idle sessions unless told otherwise', () => {
  assert.equal(parseOptions([]).sessions, 4000);
  assert.equal(parseOptions(['--sessions', '20']).sessions, 20);
});
