import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { createRateLimiter, type RateLimiter } from '../../src/ratelimit/limiter.ts';
import { redisClientsForFile } from '../helpers/redis-bus.ts';
import { runLimiterContract } from './limiter-contract.ts';

const connect = redisClientsForFile();

runLimiterContract('redis', {
  shared: true,
  async make(options, keyPrefix) {
    // One connection per limiter, as two replicas would have.
    const redis = await connect();
    // Fail mode `closed`: a store error shows up as a failed assertion, never as a silent pass.
    return createRateLimiter({
      ...options,
      store: { redis },
      failMode: 'closed',
      keyPrefix,
      logger: { warn() {}, info() {} },
    });
  },
});

describe('rate limiter (Redis) keys', () => {
  let redis: Redis;
  let limiter: RateLimiter;
  const prefix = `test:${randomUUID()}`;

  before(async () => {
    redis = await connect();
    limiter = createRateLimiter({
      rps: 0.2,
      burst: 2,
      store: { redis },
      failMode: 'closed',
      keyPrefix: prefix,
      logger: { warn() {}, info() {} },
    });
  });
  after(() => limiter.close());

  it('keeps one hash per bucket, under the prefix, scope and client key', async () => {
    await limiter.consume('id:alice');
    await limiter.consumeTool('search', 'id:alice', { rps: 1 });
    assert.deepEqual((await redis.keys(`${prefix}:*`)).sort(), [
      `${prefix}:client:id:alice`,
      `${prefix}:tool:search:id:alice`,
    ]);
    const hash = await redis.hgetall(`${prefix}:client:id:alice`);
    assert.deepEqual(Object.keys(hash).sort(), ['at', 't']);
    assert.ok(Number(hash['t']) >= 1 && Number(hash['t']) < 1.1, `tokens ${hash['t']}`);
  });

  it('lets a bucket expire once it would be full again', async () => {
    await limiter.consume('id:bob');
    const ttl = await redis.pttl(`${prefix}:client:id:bob`);
    // A full refill (2 tokens at 0.2 a second: 10 s) plus a margin of 1 s.
    assert.ok(ttl > 9000 && ttl <= 11_000, `PTTL ${ttl}`);
    await limiter.consumeTool('search', 'id:bob', { rps: 1 });
    const toolTtl = await redis.pttl(`${prefix}:tool:search:id:bob`);
    assert.ok(toolTtl > 1000 && toolTtl <= 3000, `PTTL ${toolTtl}`);
  });

  it('writes nothing when it refuses', async () => {
    const key = `${prefix}:client:id:carol`;
    await limiter.consume('id:carol', 2);
    const before = await redis.hgetall(key);
    assert.equal((await limiter.consume('id:carol')).allowed, false);
    assert.deepEqual(await redis.hgetall(key), before);
    // Nor does a batch that can never pass create a bucket.
    assert.equal((await limiter.consume('id:dave', 3)).allowed, false);
    assert.equal(await redis.exists(`${prefix}:client:id:dave`), 0);
  });

  it('loads its script again after the script cache is flushed', async () => {
    await redis.script('FLUSH');
    assert.deepEqual(await limiter.consume('id:erin'), { allowed: true, remaining: 1 });
    assert.deepEqual(await limiter.consume('id:erin'), { allowed: true, remaining: 0 });
  });
});
