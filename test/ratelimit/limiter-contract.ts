/**
 * The one contract every rate-limit store keeps, run against each store by its own test
 * file (memory: limiter-memory.test.ts, Redis: limiter-redis.test.ts). Policies with
 * rps < 1 have windows of several seconds, so no window turns over during a test; the
 * refill case uses real time with a bounded poll and no exact timing.
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

async function drain(limiter: RateLimiter, key: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) expectAllowed(await limiter.consume(key), `call ${i + 1}`);
}

export function runLimiterContract(name: string, factory: StoreFactory): void {
  describe(`rate limiter contract: ${name}`, () => {
    const prefix = () => `test:${randomUUID()}`;

    it('allows up to the burst, then refuses with a retry delay', async () => {
      // steady 1 per 5 s plus a pool of 5: six calls at once, the seventh waits for the steady window.
      const limiter = await factory.make({ rps: 0.2, burst: 6 }, prefix());
      await drain(limiter, 'id:alice', 6);
      const retry = expectLimited(await limiter.consume('id:alice'), 'call 7');
      assert.ok(retry <= 5000, `retryAfterMs ${retry} exceeds the 5 s steady window`);
      expectLimited(await limiter.consume('id:alice'), 'call 8');
      await limiter.close();
    });

    it('takes a whole burst as one batch, and refuses a batch larger than the burst', async () => {
      const limiter = await factory.make({ rps: 0.2, burst: 6 }, prefix());
      expectLimited(await limiter.consume('id:alice', 7), 'batch of 7');
      expectAllowed(await limiter.consume('id:alice', 6), 'batch of 6');
      expectLimited(await limiter.consume('id:alice'), 'call after the batch');
      await limiter.close();
    });

    it('refuses a batch the bucket cannot cover without draining the bucket', async () => {
      const limiter = await factory.make({ rps: 0.2, burst: 6 }, prefix());
      await drain(limiter, 'id:alice', 3);
      expectLimited(await limiter.consume('id:alice', 4), 'batch of 4 with 3 left');
      expectLimited(await limiter.consume('id:alice', 4), 'the same batch again');
      // The refused batches took nothing: all 3 remaining points are still there.
      await drain(limiter, 'id:alice', 3);
      expectLimited(await limiter.consume('id:alice'), 'call after the 3');
      await limiter.close();
    });

    it('splits a batch between the steady window and the pool, all or nothing', async () => {
      const limiter = await factory.make({ rps: 0.2, burst: 6 }, prefix());
      expectAllowed(await limiter.consume('id:bob', 4), 'batch of 4 (1 steady + 3 pool)');
      expectLimited(await limiter.consume('id:bob', 3), 'batch of 3 with 2 left');
      expectAllowed(await limiter.consume('id:bob', 2), 'batch of 2');
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

    it('refills over time', async () => {
      const limiter = await factory.make({ rps: 20, burst: 20 }, prefix());
      expectAllowed(await limiter.consume('id:carol', 20), 'a full burst');
      expectLimited(await limiter.consume('id:carol'), 'call after the burst');
      const deadline = Date.now() + 2000;
      let decision = await limiter.consume('id:carol');
      while (!decision.allowed && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        decision = await limiter.consume('id:carol');
      }
      expectAllowed(decision, 'a call within 2 s of the burst');
      await limiter.close();
    });

    it('keeps per-tool buckets apart from the client bucket and from other tools', async () => {
      const limiter = await factory.make({ rps: 0.2, burst: 2 }, prefix());
      const toolLimit = { rps: 0.2, burst: 1 };
      expectAllowed(await limiter.consumeTool('search', 'id:dave', toolLimit), 'first search');
      expectLimited(await limiter.consumeTool('search', 'id:dave', toolLimit), 'second search');
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
