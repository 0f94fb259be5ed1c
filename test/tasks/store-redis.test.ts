import { createRedisTaskStore } from '../../src/tasks/redis-store.ts';
import { redisClientsForFile } from '../helpers/redis-bus.ts';
import { runTaskStoreContract } from './store-contract.ts';

const connect = redisClientsForFile();

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
