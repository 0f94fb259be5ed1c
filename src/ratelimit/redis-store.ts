/**
 * Token buckets in Redis, shared by every replica: one hash per bucket at
 * `<keyPrefix>:<scope>:<client key>` (`mcp-toolkit:rl:client:id:alice`,
 * `mcp-toolkit:rl:tool:search:id:alice`) with the tokens (`t`) and when they were counted
 * (`at`, µs). One Lua script refills and takes atomically, with the formulas of bucket.ts.
 *
 * It reads the Redis server's clock (`TIME`), not the replica's, so replicas whose clocks
 * disagree still agree on a bucket. A refused call writes nothing. A bucket that has been
 * left alone until it is full again is the same as no bucket, so the key expires after a full
 * refill (plus a margin) and Redis holds only clients seen recently.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { type Bucket, SLACK } from './bucket.ts';
import type { RateDecision } from './decision.ts';

/** Keys look like `mcp-toolkit:rl:client:id:alice`. */
export const DEFAULT_KEY_PREFIX = 'mcp-toolkit:rl';

/** Expiry beyond a full refill: rounding, and a little room for a Redis that was busy. */
const EXPIRY_MARGIN_MS = 1000;

// KEYS[1]: the bucket's hash. ARGV: rps, burst, cost, expiry (ms).
// Replies {1, whole tokens left} or {0, ms until `cost` tokens exist}: Lua numbers become
// integer replies, so only whole numbers are returned.
// Before Redis 5, a script that reads TIME may write only under effects replication, which
// redis.replicate_commands() turns on (later versions always replicate effects). Numbers
// passed to redis.call keep their full precision (Redis formats them with 17 digits).
//
// RECKON, the start of both scripts: how many tokens the bucket holds now, and the refusal when
// `cost` of them are not there.
const RECKON = `
local rps = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local slack = ${SLACK}
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local saved = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = burst
if saved[1] and saved[2] then
  local elapsed = math.max(0, now - tonumber(saved[2]))
  tokens = math.min(burst, tonumber(saved[1]) + elapsed * rps / 1000000)
end
if tokens < cost - slack then
  return {0, math.max(1, math.ceil((cost - tokens) * 1000 / rps - slack))}
end
`;
const TAKE = `
if redis.replicate_commands then redis.replicate_commands() end
${RECKON}
tokens = tokens - cost
redis.call('HSET', KEYS[1], 't', tokens, 'at', now)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1, math.max(0, math.floor(tokens + slack))}
`;
const TAKE_SHA = createHash('sha1').update(TAKE).digest('hex');

// The same reckoning, writing nothing: whether `cost` would be taken now (KEYS and ARGV as TAKE's).
const PEEK = `${RECKON}
return {1, math.max(0, math.floor(tokens - cost + slack))}
`;
const PEEK_SHA = createHash('sha1').update(PEEK).digest('hex');

/** The buckets of every scope in one Redis. */
export interface RedisBuckets {
  /** Takes `cost` (1 to `bucket.burst`) from the bucket of `key` in `scope`, all or nothing. */
  take(bucket: Bucket, scope: string, key: string, cost: number): Promise<RateDecision>;
  /** Whether `cost` would be taken from that bucket now, taking nothing. */
  peek(bucket: Bucket, scope: string, key: string, cost: number): Promise<RateDecision>;
}

/**
 * Commands fail at once while the connection is not ready (so the limiter's fail mode
 * applies), and any Redis error is thrown to the caller.
 *
 * @example
 * const buckets = createRedisBuckets(redis, DEFAULT_KEY_PREFIX);
 * await buckets.take(bucketOf({ rps: 10 }), 'client', 'id:alice', 1);
 */
export function createRedisBuckets(redis: Redis, keyPrefix: string): RedisBuckets {
  async function run(
    script: string,
    sha: string,
    bucket: Bucket,
    scope: string,
    key: string,
    cost: number,
  ): Promise<RateDecision> {
    // ioredis would queue (or, with the offline queue off, fail on) a command sent while it
    // connects; answer at once, as a refused connection would.
    if (redis.status !== 'ready') throw new Error(`Redis connection ${redis.status}`);
    const redisKey = `${keyPrefix}:${scope}:${key}`;
    const expiryMs = bucket.fullMs + EXPIRY_MARGIN_MS;
    let reply: unknown;
    try {
      reply = await redis.evalsha(sha, 1, redisKey, bucket.rps, bucket.burst, cost, expiryMs);
    } catch (error) {
      // The script cache is empty after a restart or failover, or on a fresh server.
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      reply = await redis.eval(script, 1, redisKey, bucket.rps, bucket.burst, cost, expiryMs);
    }
    const [allowed, value] = reply as [number, number];
    return allowed === 1
      ? { allowed: true, remaining: value }
      : { allowed: false, reason: 'limited', retryAfterMs: value };
  }
  return {
    take: (bucket, scope, key, cost) => run(TAKE, TAKE_SHA, bucket, scope, key, cost),
    peek: (bucket, scope, key, cost) => run(PEEK, PEEK_SHA, bucket, scope, key, cost),
  };
}
