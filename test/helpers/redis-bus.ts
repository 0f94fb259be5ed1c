/**
 * One `redis-server` for a whole test file, with a command client and the pub/sub over it, as
 * the shared stores take them (`{ redis: bus.command, pubsub: bus.pubsub }`): started in the
 * file's `before`, closed and stopped in its `after`. Read the fields inside tests, once
 * `before` has run.
 */
import { after, before } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient } from '../../src/redis/client.ts';
import { createPubSub, createSubscriberClient, type PubSub } from '../../src/redis/pubsub.ts';
import { type RedisServer, startRedisServer } from './redis-server.ts';

export interface RedisBus {
  server: RedisServer;
  command: Redis;
  pubsub: PubSub;
}

/**
 * @example
 * const bus = redisBusForFile();
 * test('…', async () => { const store = createRedisEventStore({ redis: bus.command, pubsub: bus.pubsub, … }); });
 */
export function redisBusForFile(): RedisBus {
  const bus = {} as RedisBus;
  before(async () => {
    bus.server = await startRedisServer();
    bus.command = createRedisClient(bus.server.url);
    await bus.command.connect();
    bus.pubsub = createPubSub(bus.command, createSubscriberClient(bus.server.url));
  });
  after(async () => {
    await bus.pubsub?.close();
    bus.command?.disconnect();
    await bus.server?.stop();
  });
  return bus;
}

/**
 * One `redis-server` for a whole test file and a `connect()` that opens another client to it
 * (one per replica a test stands for), each disconnected, and the server stopped, in `after`.
 * @example
 * const connect = redisClientsForFile();
 * test('…', async () => { const [a, b] = [await connect(), await connect()]; });
 */
export function redisClientsForFile(): () => Promise<Redis> {
  let server: RedisServer | undefined;
  const clients: Redis[] = [];
  before(async () => {
    server = await startRedisServer();
  });
  after(async () => {
    for (const client of clients) client.disconnect();
    await server?.stop();
  });
  return async () => {
    if (server === undefined) throw new Error('redis-server did not start');
    const redis = createRedisClient(server.url);
    clients.push(redis);
    await redis.connect();
    return redis;
  };
}
