import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { createRateLimiter, type RateDecision, type RateLimitLogger } from '../../src/ratelimit/limiter.ts';
import { runLimiterContract } from './limiter-contract.ts';

const silent: RateLimitLogger = { warn() {}, info() {} };

runLimiterContract('memory', {
  shared: false,
  make: async (options, keyPrefix) =>
    createRateLimiter({ ...options, store: 'memory', logger: silent, keyPrefix }),
});

// The memory store reads Date.now(), so node:test's mock timers give these cases a frozen,
// hand-driven clock and exact timings.
describe('rate limiter (memory) on a frozen clock', () => {
  beforeEach(() => mock.timers.enable({ apis: ['Date'], now: 1_700_000_000_000 }));
  afterEach(() => mock.timers.reset());

  const retryOf = (decision: RateDecision) =>
    !decision.allowed && decision.reason === 'limited' ? decision.retryAfterMs : undefined;

  it('names the exact wait until cost tokens exist', async () => {
    const limiter = createRateLimiter({ rps: 2, burst: 2, store: 'memory', logger: silent });
    assert.deepEqual(await limiter.consume('k', 2), { allowed: true, remaining: 0 });
    assert.equal(retryOf(await limiter.consume('k')), 500);
    assert.equal(retryOf(await limiter.consume('k', 2)), 1000);
    mock.timers.tick(200);
    assert.equal(retryOf(await limiter.consume('k')), 300);
    assert.equal(retryOf(await limiter.consume('k', 2)), 800);
    mock.timers.tick(300);
    assert.deepEqual(await limiter.consume('k'), { allowed: true, remaining: 0 });
  });

  it('refills continuously, not in steps', async () => {
    const limiter = createRateLimiter({ rps: 1, burst: 3, store: 'memory', logger: silent });
    assert.equal((await limiter.consume('k', 3)).allowed, true);
    assert.equal(retryOf(await limiter.consume('k')), 1000);
    // Half the time for one token: half a token, still refused, and told the other half.
    mock.timers.tick(500);
    assert.equal(retryOf(await limiter.consume('k')), 500);
    mock.timers.tick(500);
    assert.deepEqual(await limiter.consume('k'), { allowed: true, remaining: 0 });
    // A batch of 2 waits for two tokens, to the millisecond.
    assert.equal(retryOf(await limiter.consume('k', 2)), 2000);
    mock.timers.tick(1999);
    assert.equal(retryOf(await limiter.consume('k', 2)), 1);
    mock.timers.tick(1);
    assert.deepEqual(await limiter.consume('k', 2), { allowed: true, remaining: 0 });
  });

  it('leaves the bucket as it was when it refuses a batch', async () => {
    const limiter = createRateLimiter({ rps: 1, burst: 4, store: 'memory', logger: silent });
    assert.deepEqual(await limiter.consume('k', 3), { allowed: true, remaining: 1 });
    assert.equal(retryOf(await limiter.consume('k', 2)), 1000);
    assert.equal(retryOf(await limiter.consume('k', 2)), 1000, 'the refusal took nothing');
    mock.timers.tick(1000);
    assert.deepEqual(await limiter.consume('k', 2), { allowed: true, remaining: 0 });
  });

  it('refuses a cost above the burst, even on a full bucket, with the time of a full refill', async () => {
    const limiter = createRateLimiter({ rps: 2, burst: 4, store: 'memory', logger: silent });
    assert.equal(retryOf(await limiter.consume('k', 5)), 2000);
    assert.deepEqual(await limiter.consume('k', 4), { allowed: true, remaining: 0 });
  });

  it('holds no more than the burst after a long idle time', async () => {
    const limiter = createRateLimiter({ rps: 10, burst: 5, store: 'memory', logger: silent });
    assert.equal((await limiter.consume('k', 5)).allowed, true);
    mock.timers.tick(3_600_000);
    assert.deepEqual(await limiter.consume('k'), { allowed: true, remaining: 4 });
  });

  it('gives a perfectly paced client exactly burst + rps × T, not a call more', async () => {
    for (const { rps, burst, stepMs, spanMs } of [
      // 50 calls a second against 10: the default burst of 20, then 10 a second.
      { rps: 10, burst: undefined, stepMs: 20, spanMs: 60_000 },
      // Refills of 0.021 tokens per call, which no float adds up exactly.
      { rps: 3, burst: 5, stepMs: 7, spanMs: 30_000 },
      { rps: 0.5, burst: 1, stepMs: 100, spanMs: 60_000 },
    ]) {
      mock.timers.setTime(1_700_000_000_000);
      const limiter = createRateLimiter({ rps, burst, store: 'memory', logger: silent });
      let admitted = 0;
      let t = 0;
      for (; t <= spanMs; t += stepMs) {
        if ((await limiter.consume('k')).allowed) admitted += 1;
        mock.timers.tick(stepMs);
      }
      const lastCallAt = t - stepMs;
      const expected = limiter.burst + Math.floor((rps * lastCallAt) / 1000);
      assert.equal(admitted, expected, JSON.stringify({ rps, burst, stepMs }));
    }
  });

  it('keeps each tool its own bucket, apart from the client bucket', async () => {
    const limiter = createRateLimiter({ rps: 1, burst: 1, store: 'memory', logger: silent });
    const limit = { rps: 2, burst: 2 };
    assert.deepEqual(await limiter.consumeTool('search', 'k', limit), { allowed: true, remaining: 1 });
    assert.deepEqual(await limiter.consumeTool('search', 'k', limit), { allowed: true, remaining: 0 });
    assert.equal(retryOf(await limiter.consumeTool('search', 'k', limit)), 500);
    assert.deepEqual(await limiter.consumeTool('fetch', 'k', limit), { allowed: true, remaining: 1 });
    assert.deepEqual(await limiter.consume('k'), { allowed: true, remaining: 0 });
    mock.timers.tick(500);
    assert.deepEqual(await limiter.consumeTool('search', 'k', limit), { allowed: true, remaining: 0 });
  });
});
