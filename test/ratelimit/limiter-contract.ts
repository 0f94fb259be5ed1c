/**
 * The one contract every rate-limit store keeps, run against each store by its own test
 * file (memory: limiter-memory.test.ts, Redis: limiter-redis.test.ts). Most cases use
 * rps 0.2 (a token every 5 s), so no whole token comes back while they run; the refill cases
 * use real time (Redis keeps its own clock) and check only what holds however slow the
 * machine is: a call passes once its retryAfterMs has gone by. The exact timings are checked
 * on a frozen clock in limiter-memory.test.ts.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { RateDecision, RateLimiter, RateLimiterOptions } from '../../src/ratelimit/limiter.ts';

export interface StoreFactory {
  /** A limiter over the store under test; `prefix` isolates one test's keys from the others'. */
  make(options: Pick<RateLimiterOptions, 'rps' | 'burst'>, prefix: string): Promise<RateLimiter>;
  /** True when two limiters made with the same prefix share buckets (Redis: the cross-replica property). */
  readonly shared: boolean;
}

function expectAllowed(decision: RateDecision, what: string): void {
  assert.equal(decision.allowed, true, `${what}: expected allowed, got ${JSON.stringify(decision)}`);
}

function expectLimited(decision: RateDecision, what: string): number {
  assert.ok(
    !decision.allowed && decision.reason === 'limited',
    `${what}: expected limited, got ${JSON.stringify(decision)}`,
  );
  assert.ok(decision.retryAfterMs > 0, `${what}: retryAfterMs must be positive`);
  return decision.retryAfterMs;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function drain(limiter: RateLimiter, key: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) expectAllowed(await limiter.consume(key), `call ${i + 1}`);
}

export function runLimiterContract(name: string, factory: StoreFactory): void {
  describe(`rate limiter contract: ${name}`, () => {
    const prefix = () => `test:${randomUUID()}`;

    it('allows up to the burst, then refuses with the wait for one token', async () => {
      // 0.2 tokens a second: one token every 5 s, so none comes back during the test.
      const limiter = await factory.make({ rps: 0.2, burst: 6 }, prefix());
      await drain(limiter, 'id:alice', 6);
      const retry = expectLimited(await limiter.consume('id:alice'), 'call 7');
      assert.ok(retry <= 5000 && retry > 3000, `retryAfterMs ${retry}: about 5 s for one token`);
      expectLimited(await limiter.consume('id:alice'), 'call 8');
      await limiter.close();
    });

    it('consumeNow decides at once from buckets in this process, and draws on the same bucket as consume', async () => {
      const limiter = await factory.make({ rps: 0.2, burst: 3 }, prefix());
      const now = limiter.consumeNow('id:carol');
      if (factory.shared) {
        // A store to ask (Redis): only consume can tell, and nothing was taken.
        assert.equal(now, undefined);
        await drain(limiter, 'id:carol', 3);
      } else {
        assert.ok(now !== undefined, 'buckets in memory answer at once');
        expectAllowed(now, 'consumeNow, call 1');
        await drain(limiter, 'id:carol', 2);
        expectLimited(limiter.consumeNow('id:carol') as RateDecision, 'consumeNow, call 4');
      }
      expectLimited(await limiter.consume('id:carol'), 'consume after the burst');
      await limiter.close();
    });

    it('authFailures.quiet holds until a failure of the key is counted', async () => {
      const limiter = await factory.make({ rps: 0.2, burst: 3 }, prefix());
      assert.equal(limiter.authFailures.quiet('ip:192.0.2.7'), true);
      expectAllowed(await limiter.authFailures.count('ip:192.0.2.7'), 'one failure');
      assert.equal(limiter.authFailures.quiet('ip:192.0.2.7'), false);
      assert.equal(limiter.authFailures.quiet('ip:192.0.2.8'), true, 'another address is untouched');
      await limiter.close();
    });

    it('exposes the bucket size: as set, else twice rps and at least 1', async () => {
      for (const [options, burst] of [
        [{ rps: 0.2, burst: 6 }, 6],
        [{ rps: 10 }, 20],
        [{ rps: 10, burst: 0 }, 20],
        [{ rps: 0.2 }, 1],
        [{ rps: 10, burst: 3 }, 3],
      ] as const) {
        const limiter = await factory.make(options, prefix());
        assert.equal(limiter.burst, burst, JSON.stringify(options));
        await limiter.close();
      }
    });

    it('reports the whole tokens left', async () => {
      const limiter = await factory.make({ rps: 0.2, burst: 6 }, prefix());
      assert.deepEqual(await limiter.consume('id:alice'), { allowed: true, remaining: 5 });
      assert.deepEqual(await limiter.consume('id:alice', 2), { allowed: true, remaining: 3 });
      assert.deepEqual(await limiter.consume('id:alice', 3), { allowed: true, remaining: 0 });
      await limiter.close();
    });

    it('takes a whole burst as one batch; a batch larger than the burst waits a full refill', async () => {
      const limiter = await factory.make({ rps: 0.2, burst: 6 }, prefix());
      // It can never pass, even on a full bucket: the advice is the time of a full refill.
      assert.deepEqual(await limiter.consume('id:alice', 7), {
        allowed: false,
        reason: 'limited',
        retryAfterMs: 30_000,
      });
      expectAllowed(await limiter.consume('id:alice', 6), 'batch of 6');
      expectLimited(await limiter.consume('id:alice'), 'call after the batch');
      await limiter.close();
    });

    it('refuses a batch the bucket cannot cover without draining the bucket', async () => {
      const limiter = await factory.make({ rps: 0.2, burst: 6 }, prefix());
      await drain(limiter, 'id:alice', 3);
      const retry = expectLimited(await limiter.consume('id:alice', 4), 'batch of 4 with 3 left');
      assert.ok(retry <= 5000, `retryAfterMs ${retry}: one token is missing`);
      expectLimited(await limiter.consume('id:alice', 4), 'the same batch again');
      // The refused batches took nothing: all 3 remaining tokens are still there.
      await drain(limiter, 'id:alice', 3);
      expectLimited(await limiter.consume('id:alice'), 'call after the 3');
      await limiter.close();
    });

    it('takes batches from one bucket, all or nothing', async () => {
      const limiter = await factory.make({ rps: 0.2, burst: 6 }, prefix());
      assert.deepEqual(await limiter.consume('id:bob', 4), { allowed: true, remaining: 2 });
      const retry = expectLimited(await limiter.consume('id:bob', 3), 'batch of 3 with 2 left');
      assert.ok(retry <= 5000 && retry > 3000, `retryAfterMs ${retry}: one token is missing`);
      assert.deepEqual(await limiter.consume('id:bob', 2), { allowed: true, remaining: 0 });
      expectLimited(await limiter.consume('id:bob'), 'call after the bucket is empty');
      await limiter.close();
    });

    it('keeps separate clients in separate buckets', async () => {
      const limiter = await factory.make({ rps: 0.2, burst: 2 }, prefix());
      await drain(limiter, 'ip:10.0.0.1', 2);
      expectLimited(await limiter.consume('ip:10.0.0.1'), 'first client, call 3');
      await drain(limiter, 'ip:10.0.0.2', 2);
      await drain(limiter, 'id:10.0.0.1', 2);
      await limiter.close();
    });

    it('refills continuously: a refused call passes once its retryAfterMs has gone by', async () => {
      // 20 tokens a second: one every 50 ms.
      const limiter = await factory.make({ rps: 20, burst: 2 }, prefix());
      expectAllowed(await limiter.consume('id:carol', 2), 'a full burst');
      const retry = expectLimited(await limiter.consume('id:carol'), 'call after the burst');
      assert.ok(retry <= 50, `retryAfterMs ${retry}: one token takes 50 ms`);
      // A few ms more: timers may fire a little early.
      await sleep(retry + 10);
      expectAllowed(await limiter.consume('id:carol'), `a call ${retry + 10} ms later`);
      await limiter.close();
    });

    it('holds no more than the burst, however long the client was idle', async () => {
      const limiter = await factory.make({ rps: 20, burst: 2 }, prefix());
      expectAllowed(await limiter.consume('id:carol', 2), 'a full burst');
      // Long enough to refill 3 tokens, were the bucket unbounded (one more than the burst).
      await sleep(150);
      assert.deepEqual(await limiter.consume('id:carol'), { allowed: true, remaining: 1 });
      await limiter.close();
    });

    it('keeps per-tool buckets apart from the client bucket and from other tools', async () => {
      const limiter = await factory.make({ rps: 0.2, burst: 2 }, prefix());
      const toolLimit = { rps: 0.2, burst: 1 };
      expectAllowed(await limiter.consumeTool('search', 'id:dave', toolLimit), 'first search');
      const retry = expectLimited(await limiter.consumeTool('search', 'id:dave', toolLimit), 'second search');
      assert.ok(retry <= 5000, `retryAfterMs ${retry}: the tool's bucket refills at 0.2 a second`);
      expectAllowed(await limiter.consumeTool('search', 'id:erin', toolLimit), 'search by another client');
      expectAllowed(await limiter.consumeTool('fetch', 'id:dave', toolLimit), 'another tool');
      await drain(limiter, 'id:dave', 2);
      await limiter.close();
    });

    it('lets everything through when the per-client limit is off', async () => {
      const limiter = await factory.make({ rps: 0 }, prefix());
      assert.equal(limiter.burst, 0);
      for (let i = 0; i < 50; i += 1) expectAllowed(await limiter.consume('id:frank', 10), `batch ${i}`);
      await limiter.close();
    });

    it('counts failed authentications per address in a bucket of their own; check takes nothing', async () => {
      const limiter = await factory.make({ rps: 0.2, burst: 3 }, prefix());
      const failures = limiter.authFailures;
      // Nothing counted yet: a check passes (and takes nothing, however often it is made).
      for (let i = 0; i < 5; i += 1) expectAllowed(await failures.check('ip:10.0.0.1'), `check ${i + 1}`);
      for (let i = 0; i < 3; i += 1) {
        expectAllowed(await failures.check('ip:10.0.0.1'), `check before failure ${i + 1}`);
        expectAllowed(await failures.count('ip:10.0.0.1'), `failure ${i + 1}`);
      }
      const retry = expectLimited(await failures.check('ip:10.0.0.1'), 'check after three failures');
      assert.ok(retry <= 5000 && retry > 3000, `retryAfterMs ${retry}: about 5 s for one token`);
      expectLimited(await failures.count('ip:10.0.0.1'), 'a fourth failure');
      expectLimited(await failures.check('ip:10.0.0.1'), 'checks still refused');
      // Another address, and the per-client bucket of the same address, are untouched.
      expectAllowed(await failures.check('ip:10.0.0.2'), 'another address');
      expectAllowed(await failures.count('ip:10.0.0.2'), 'a failure of another address');
      await drain(limiter, 'ip:10.0.0.1', 3);
      await limiter.close();
    });

    it('counts no failed authentication when the per-client limit is off', async () => {
      const limiter = await factory.make({ rps: 0 }, prefix());
      for (let i = 0; i < 20; i += 1)
        expectAllowed(await limiter.authFailures.count('ip:10.0.0.3'), `failure ${i}`);
      expectAllowed(await limiter.authFailures.check('ip:10.0.0.3'), 'check');
      await limiter.close();
    });

    it('shares failed authentications between limiters: a replica that counted none lets one check through, its count is refused', {
      skip: !factory.shared,
    }, async () => {
      const shared = prefix();
      const replicaA = await factory.make({ rps: 0.2, burst: 2 }, shared);
      const replicaB = await factory.make({ rps: 0.2, burst: 2 }, shared);
      expectAllowed(await replicaA.authFailures.count('ip:10.0.0.4'), 'replica A, failure 1');
      expectAllowed(await replicaA.authFailures.count('ip:10.0.0.4'), 'replica A, failure 2');
      expectLimited(await replicaA.authFailures.check('ip:10.0.0.4'), 'replica A checks');
      // Replica B has seen no failure of this address: it asks no store before credentials...
      expectAllowed(await replicaB.authFailures.check('ip:10.0.0.4'), 'replica B, first check');
      // ...but the failure it counts finds the shared bucket empty, and its checks then ask.
      expectLimited(await replicaB.authFailures.count('ip:10.0.0.4'), 'replica B, failure 3');
      expectLimited(await replicaB.authFailures.check('ip:10.0.0.4'), 'replica B checks');
      await replicaA.close();
      await replicaB.close();
    });

    it('shares buckets between limiters on the same store', { skip: !factory.shared }, async () => {
      const shared = prefix();
      const replicaA = await factory.make({ rps: 0.2, burst: 4 }, shared);
      const replicaB = await factory.make({ rps: 0.2, burst: 4 }, shared);
      expectAllowed(await replicaA.consume('id:grace', 2), 'replica A, batch of 2');
      expectAllowed(await replicaB.consume('id:grace', 2), 'replica B, batch of 2');
      expectLimited(await replicaA.consume('id:grace'), 'replica A after both');
      expectLimited(await replicaB.consume('id:grace'), 'replica B after both');
      expectAllowed(await replicaB.consume('id:heidi'), 'another client on replica B');
      await replicaA.close();
      await replicaB.close();
    });
  });
}
