/**
 * Writes that must survive a Sentinel failover (src/scale/durable.ts), on two real
 * redis-server processes, one the replica of the other: a write is answered once the replica
 * has it; with the replica frozen, the write counts as failed (and a session store turns that
 * into the 503 a client retries); a master with no replica connected answers at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { ProtocolError } from '../../src/base/errors.ts';
import { createRedisSessionStore } from '../../src/protocol/session/redis-store.ts';
import { replicatedWrites } from '../../src/scale/durable.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';
import { until } from '../helpers/until.ts';

describe('replicated writes (WAIT 1)', () => {
  let master: RedisServer;
  let replica: RedisServer;
  let client: Redis;
  let replicaClient: Redis;
  before(async () => {
    [master, replica] = await Promise.all([startRedisServer(), startRedisServer()]);
    client = new Redis(master.url, { maxRetriesPerRequest: 1 });
    replicaClient = new Redis(replica.url, { maxRetriesPerRequest: 1 });
    // The replica loads the master's data in memory, writing no dump.rdb where the test runs.
    await replicaClient.config('SET', 'repl-diskless-load', 'swapdb');
    await replicaClient.call('REPLICAOF', '127.0.0.1', String(master.port));
    await until(async () => (await replicaClient.info('replication')).includes('master_link_status:up'), {
      timeoutMs: 30_000,
      intervalMs: 50,
      message: 'the replica in sync',
    });
    // The master lists it among its replicas (what WAIT counts) once the first sync is done.
    await until(async () => /slave0:.*state=online/.test(await client.info('replication')), {
      timeoutMs: 30_000,
      intervalMs: 50,
      message: 'the master to count its replica',
    });
    // And the link acknowledges writes: a WAIT right after the first sync could go unanswered
    // for a second (the 800 ms of the test below then ran out on a quiet machine).
    await until(async () => Number(await client.call('WAIT', 1, 1000)) >= 1, {
      timeoutMs: 30_000,
      message: 'the replica to acknowledge a write',
    });
  });
  after(async () => {
    replica?.resume();
    client?.disconnect();
    replicaClient?.disconnect();
    await Promise.all([replica?.stop(), master?.stop()]);
  });

  test('a write is answered once the replica has it', async () => {
    await client.set('k', 'v');
    // What is checked is that the answer waits for the replica, not the 800 ms bound: on a
    // machine loaded to an average of 20 the replica's acknowledgement can take longer.
    await replicatedWrites(client, 15_000)();
    assert.equal(await replicaClient.get('k'), 'v');
  });

  test('the replica frozen: the write fails, and a new session is refused with 503', async () => {
    replica.pause();
    try {
      await client.set('k2', 'v');
      await assert.rejects(replicatedWrites(client, 200)(), /no replica confirmed the write within 200 ms/);
      const store = createRedisSessionStore({
        redis: client,
        idleMs: 60_000,
        maxSessions: 100,
        keyPrefix: `durable-${process.pid}:`,
        durable: replicatedWrites(client, 200),
      });
      await assert.rejects(
        store.create(),
        (err: unknown) => err instanceof ProtocolError && err.httpStatus === 503,
        'the client is told to retry, not handed a session a failover could lose',
      );
    } finally {
      replica.resume();
    }
  });

  test('a master with no replica connected answers at once', async () => {
    await replica.stop();
    await until(async () => /connected_slaves:0/.test(await client.info('replication')), {
      timeoutMs: 30_000,
      intervalMs: 50,
      message: 'the master alone',
    });
    await client.set('k3', 'v');
    await replicatedWrites(client, 60_000)();
  });
});
