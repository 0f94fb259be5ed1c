/** test/helpers/until.ts: resolves with the predicate's first truthy value, or names what never happened. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { until } from '../helpers/until.ts';

test('resolves with the first truthy value, polling sync and async predicates', async () => {
  let n = 0;
  assert.equal(await until(() => (++n >= 3 ? n : undefined), { intervalMs: 1 }), 3);
  let m = 0;
  assert.equal(await until(async () => ++m === 2 && 'two', { intervalMs: 1 }), 'two');
});

test('a predicate that throws is retried; its last error is kept for the timeout message', async () => {
  let n = 0;
  assert.equal(
    await until(
      () => {
        if (++n < 3) throw new Error('not yet');
        return true;
      },
      { intervalMs: 1 },
    ),
    true,
  );
  await assert.rejects(
    until(
      () => {
        throw new Error('still down');
      },
      { timeoutMs: 20, intervalMs: 5, message: 'the server never came up' },
    ),
    /^Error: the server never came up: not within 20 ms \(last error: Error: still down\)$/,
  );
});

test('times out with the message saying what never happened, soon after timeoutMs', async () => {
  const started = Date.now();
  await assert.rejects(
    until(() => false, { timeoutMs: 30, intervalMs: 5, message: 'the count never reached 2' }),
    { message: 'the count never reached 2: not within 30 ms' },
  );
  const took = Date.now() - started;
  assert.ok(took >= 30 && took < 1000, `took ${took} ms`);
});
