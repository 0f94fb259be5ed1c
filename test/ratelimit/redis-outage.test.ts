/**
 * What the limiter does when a real Redis goes away (killed, then hung) and comes back:
 * fail mode `open` lets calls through and reports a degradation once, `closed` refuses
 * them and fails health; both recover without help once Redis answers again.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { createRateLimiter, type RateDecision, type RateLimiter } from '../../src/ratelimit/limiter.ts';
import { createRedisClient } from '../../src/redis/client.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';

/** Generous: a call during an outage must not hang (the limiter's own bound is 500 ms). */
const NO_HANG_MS = 2000;

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

describe('rate limiter over Redis during an outage', () => {
  let server: RedisServer;
  const open: Array<{ redis: Redis; limiter: RateLimiter }> = [];

  before(async () => {
    server = await startRedisServer();
  });
  afterEach(async () => {
    server.resume();
    for (const { redis, limiter } of open.splice(0)) {
      await limiter.close();
      redis.disconnect();
    }
  });
  after(async () => {
    await server.stop();
  });

  async function setUp(failMode: 'open' | 'closed') {
    const lines: LogLine[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const redis = createRedisClient(server.url);
    await redis.connect();
    const limiter = createRateLimiter({ rps: 0.2, burst: 2, store: { redis }, failMode, logger });
    open.push({ redis, limiter });
    return { limiter, lines };
  }

  async function timedConsume(limiter: RateLimiter): Promise<RateDecision> {
    const started = performance.now();
    const decision = await limiter.consume('id:alice');
    const took = performance.now() - started;
    assert.ok(took < NO_HANG_MS, `consume took ${Math.round(took)} ms during the outage`);
    return decision;
  }

  /** Polls (bounded) until a call is decided by Redis again and health is clean. */
  async function waitForRecovery(limiter: RateLimiter): Promise<RateDecision> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const decision = await limiter.consume('id:zoe');
      const recovered = decision.allowed && decision.degraded === undefined;
      if (recovered && limiter.health().degraded === undefined) return decision;
      if (Date.now() > deadline)
        assert.fail(`no recovery: ${JSON.stringify({ decision, health: limiter.health() })}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('open: lets calls through, warns once, reports degraded health, then recovers', async () => {
    const { limiter, lines } = await setUp('open');
    assert.deepEqual(await limiter.consume('id:alice'), { allowed: true, remaining: 1 });
    assert.deepEqual(limiter.health(), { ok: true });

    await server.stop();
    for (let i = 0; i < 5; i += 1) {
      assert.deepEqual(await timedConsume(limiter), { allowed: true, remaining: 0, degraded: true });
    }
    const health = limiter.health();
    assert.equal(health.ok, true);
    assert.match(health.degraded ?? '', /unreachable/);
    const warnings = lines.filter((line) => line.level === 40);
    assert.equal(warnings.length, 1, 'one warning per outage, not one per call');
    assert.equal(warnings[0]?.['failMode'], 'open');
    assert.equal(warnings[0]?.['store'], 'redis');

    await server.restart();
    await waitForRecovery(limiter);
    assert.ok(lines.some((line) => line.level === 30 && /reachable again/.test(line.msg)));
  });

  it('closed: refuses calls as unavailable and fails health, then recovers', async () => {
    const { limiter, lines } = await setUp('closed');
    assert.equal((await limiter.consume('id:alice')).allowed, true);

    await server.stop();
    assert.deepEqual(await timedConsume(limiter), { allowed: false, reason: 'unavailable' });
    assert.deepEqual(await timedConsume(limiter), { allowed: false, reason: 'unavailable' });
    const health = limiter.health();
    assert.equal(health.ok, false);
    assert.match(health.degraded ?? '', /refusing calls/);
    assert.equal(lines.filter((line) => line.level === 40 && line['failMode'] === 'closed').length, 1);

    await server.restart();
    await waitForRecovery(limiter);
    assert.deepEqual(limiter.health(), { ok: true });
  });

  it('closed: a hung Redis is cut off by the timeout instead of holding the call', async () => {
    const { limiter } = await setUp('closed');
    assert.equal((await limiter.consume('id:alice')).allowed, true);

    server.pause();
    assert.deepEqual(await timedConsume(limiter), { allowed: false, reason: 'unavailable' });
    assert.equal(limiter.health().ok, false);

    server.resume();
    await waitForRecovery(limiter);
  });

  it('an error on a connection that stays ready is no outage: health stays clean without a call', async () => {
    const { limiter, lines } = await setUp('closed');
    const redis = open.at(-1)!.redis;
    assert.equal(redis.status, 'ready');
    // What ioredis emits for a failure beside the connection (a sentinel's, a reconnect
    // attempt's) while the connection itself stays ready.
    redis.emit('error', new Error('read ECONNRESET'));
    assert.equal(redis.status, 'ready');
    assert.deepEqual(limiter.health(), { ok: true });
    assert.equal(lines.filter((l) => /unreachable/.test(l.msg)).length, 0, 'no outage logged');
    // A real loss is still one: the connection closes, health fails, and it comes back.
    redis.disconnect(true);
    await new Promise<void>((resolve) => redis.once('close', () => resolve()));
    assert.equal(limiter.health().ok, false);
    await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
    assert.deepEqual(limiter.health(), { ok: true });
  });

  it('reports a client that has not connected yet as degraded', async () => {
    const redis = createRedisClient(server.url);
    const limiter = createRateLimiter({
      rps: 1,
      store: { redis },
      failMode: 'closed',
      logger: { warn() {}, info() {} },
    });
    open.push({ redis, limiter });
    assert.deepEqual(limiter.health(), {
      ok: false,
      degraded: 'rate-limit store (Redis) unreachable, refusing calls: connection wait',
    });
    assert.deepEqual(await limiter.consume('id:alice'), { allowed: false, reason: 'unavailable' });
  });
});
