import { after, before } from 'node:test';
import type { Redis } from 'ioredis';
import { createRateLimiter } from '../../src/ratelimit/limiter.ts';
import { createRedisClient } from '../../src/ratelimit/redis-client.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';
import { runLimiterContract } from './limiter-contract.ts';

let server: RedisServer | undefined;
const clients: Redis[] = [];

before(async () => {
  server = await startRedisServer();
});

after(async () => {
  for (const client of clients) client.disconnect();
  await server?.stop();
});

runLimiterContract('redis', {
  shared: true,
  async make(options, keyPrefix) {
    if (server === undefined) throw new Error('redis-server did not start');
    // One connection per limiter, as two replicas would have.
    const redis = createRedisClient(server.url);
    clients.push(redis);
    await redis.connect();
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
