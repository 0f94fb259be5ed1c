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

// rate-limiter-flexible's memory store reads Date.now() and expires keys with setTimeout, so
// node:test's mock timers give these cases a frozen, hand-driven clock.
describe('rate limiter (memory) on a frozen clock', () => {
  beforeEach(() => mock.timers.enable({ apis: ['Date', 'setTimeout'], now: 1_700_000_000_000 }));
  afterEach(() => mock.timers.reset());

  const retryOf = (decision: RateDecision) =>
    !decision.allowed && decision.reason === 'limited' ? decision.retryAfterMs : undefined;

  it('names the exact wait until the steady window refills', async () => {
    const limiter = createRateLimiter({ rps: 2, burst: 2, store: 'memory', logger: silent });
    assert.equal((await limiter.consume('k', 2)).allowed, true);
    assert.equal(retryOf(await limiter.consume('k')), 1000);
    mock.timers.tick(400);
    assert.equal(retryOf(await limiter.consume('k')), 600);
    mock.timers.tick(600);
    assert.deepEqual(await limiter.consume('k'), { allowed: true, remaining: 1 });
  });

  it('gives back the pool only after its window, and the steady rate every second', async () => {
    // rps 1, burst 3: steady 1 per second, pool 2 renewed 20 s after first use.
    const limiter = createRateLimiter({ rps: 1, burst: 3, store: 'memory', logger: silent });
    assert.equal((await limiter.consume('k', 3)).allowed, true);
    assert.equal(retryOf(await limiter.consume('k')), 1000);
    mock.timers.tick(1000);
    assert.equal((await limiter.consume('k')).allowed, true);
    // The steady window is spent again and a batch of 2 needs the pool, renewed at t = 20 s.
    assert.equal(retryOf(await limiter.consume('k', 2)), 19_000);
    mock.timers.tick(19_000);
    assert.equal((await limiter.consume('k', 3)).allowed, true);
  });

  it('holds a perfectly paced client to within 10% of rps over a minute', async () => {
    const rps = 10;
    const limiter = createRateLimiter({ rps, store: 'memory', logger: silent });
    let admitted = 0;
    for (let t = 0; t < 60_000; t += 20) {
      if ((await limiter.consume('k')).allowed) admitted += 1;
      mock.timers.tick(20);
    }
    // A token bucket admits burst + rps × 60 = 620; this approximation may add 10% of rps.
    assert.ok(admitted >= 600, `admitted ${admitted}`);
    assert.ok(admitted <= 620 + 0.1 * rps * 60, `admitted ${admitted}`);
  });
});
