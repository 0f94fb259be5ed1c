/**
 * The task store contract on the Redis store, two stores on two connections (two replicas)
 * over one real redis-server; its TTLs are Redis's own, so time passes for real.
 */
import { after, before } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient } from '../../src/redis/client.ts';
import { createRedisTaskStore } from '../../src/tasks/redis-store.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';
import { runTaskStoreContract } from './store-contract.ts';

let server: RedisServer | undefined;
const clients: Redis[] = [];
before(async () => {
  server = await startRedisServer();
});
after(async () => {
  for (const client of clients) client.disconnect();
  await server?.stop();
});

async function connect(): Promise<Redis> {
  if (server === undefined) throw new Error('redis-server did not start');
  const redis = createRedisClient(server.url);
  clients.push(redis);
  await redis.connect();
  return redis;
}

runTaskStoreContract('redis', {
  async make() {
    const keyPrefix = `test-${Math.random().toString(36).slice(2)}:`;
    return {
      a: createRedisTaskStore({ redis: await connect(), keyPrefix }),
      b: createRedisTaskStore({ redis: await connect(), keyPrefix }),
    };
  },
  advance: (ms) => new Promise((r) => setTimeout(r, ms)),
  now: () => Date.now(),
});
