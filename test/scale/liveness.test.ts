/**
 * Which replicas run (src/scale/redis-liveness.ts) against a real `redis-server`: a lease
 * lasts 5/3 of MCP_TASK_LEASE_MS; a replica without one is judged stopped, except by a Redis
 * that has not held leases for a lease's life (one restarted empty: every running replica
 * writes its lease again within a second, and must not be judged meanwhile); a replica that
 * closes gives its lease up. The 10 s outage with the default lease is test/tasks/lease-outage.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient } from '../../src/redis/client.ts';
import { createRedisLiveness, leaseLifeMs } from '../../src/scale/redis-liveness.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';
import { until } from '../helpers/until.ts';

let redis: RedisServer;
let command: Redis;
before(async () => {
  redis = await startRedisServer();
  command = createRedisClient(redis.url);
  command.on('error', () => {}); // the restart below
  await command.connect();
});
after(async () => {
  command?.disconnect();
  await redis?.stop();
});

const quiet = { warn() {}, info() {} };

test('a lease lasts 5/3 of MCP_TASK_LEASE_MS', async () => {
  assert.equal(leaseLifeMs(15_000), 25_000);
  const a = createRedisLiveness({
    redis: command,
    replicaId: 'a',
    leaseMs: 3000,
    keyPrefix: 'l1:',
    logger: quiet,
  });
  await a.ready;
  const left = await command.pttl('l1:replica:a');
  assert.ok(left > 3000 && left <= 5000, `${left} ms left`);
  await a.close();
  assert.equal(await command.exists('l1:replica:a'), 0, 'closing gives the lease up');
});

test('no lease: stopped, once Redis has held leases for a lease’s life; a Redis restarted empty judges nobody at first', async () => {
  const b = createRedisLiveness({
    redis: command,
    replicaId: 'b',
    leaseMs: 1000,
    keyPrefix: 'l2:',
    logger: quiet,
  });
  await b.ready;
  assert.equal(await b.isAlive('b'), true);
  // A fresh Redis (this prefix has never held a lease before b's): not judged yet, then judged.
  assert.equal(await b.isAlive('ghost'), true);
  await until(async () => !(await b.isAlive('ghost')), {
    timeoutMs: 10_000,
    message: 'the ghost judged stopped after a lease’s life',
  });

  await redis.restart();
  await until(() => command.status === 'ready', { timeoutMs: 10_000, message: 'reconnected' });
  // Emptied: b's lease is gone until it writes it again, and nobody is judged meanwhile.
  assert.equal(await b.isAlive('ghost'), true);
  await until(async () => (await command.exists('l2:replica:b')) === 1, {
    timeoutMs: 10_000,
    message: 'b wrote its lease again after the restart',
  });
  await b.close();
});
