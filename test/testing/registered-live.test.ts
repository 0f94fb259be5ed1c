/**
 * The programmatic API as a user would write it: `registerLiveTests` in a `node --test` file
 * adds the generated tests beside the file's own. Here against the good fixture server (on
 * in-memory streams), strict, so every one of them must pass for this file to pass.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { registerLiveTests } from '../../src/testing/live/tests.ts';
import { FAST, fixtureStreams } from './helpers/fixtures.ts';

test('a test of the file itself runs beside the generated ones', () => {
  assert.equal(typeof registerLiveTests, 'function');
});

registerLiveTests(await fixtureStreams('none'), {
  ...FAST,
  strict: true,
  invalidInput: 'error',
  concurrency: 4,
});
