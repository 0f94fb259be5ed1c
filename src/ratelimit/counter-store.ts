/**
 * Builds the rate-limiter-flexible counters of a policy over one store: process memory on a
 * single replica, Redis when several replicas must share one bucket per client.
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { BucketPolicy } from './bucket-policy.ts';
import type { Counters } from './take-tokens.ts';

/** Where buckets live: this process, or a Redis every replica talks to. */
export type RateLimitStore = 'memory' | { readonly redis: Redis };

/** Keys look like `mcp-toolkit:rl:client:s:id:alice` (steady) and `...:p:...` (pool). */
export const DEFAULT_KEY_PREFIX = 'mcp-toolkit:rl';

/**
 * The counters of `policy` under `<keyPrefix>:<scope>`. Two limiters (or two replicas) built
 * with the same store, prefix, scope and policy share their buckets.
 */
export function createCounters(
  policy: BucketPolicy,
  store: RateLimitStore,
  keyPrefix: string,
  scope: string,
): Counters {
  const make = (part: 's' | 'p', points: number, duration: number) => {
    const options = { points, duration, keyPrefix: `${keyPrefix}:${scope}:${part}` };
    return store === 'memory'
      ? new RateLimiterMemory(options)
      : // Fail at once while the connection is down instead of waiting in ioredis' queue.
        new RateLimiterRedis({ ...options, storeClient: store.redis, rejectIfRedisNotReady: true });
  };
  return {
    steady: make('s', policy.steadyPoints, policy.steadySeconds),
    pool: policy.poolPoints > 0 ? make('p', policy.poolPoints, policy.poolSeconds) : undefined,
  };
}
