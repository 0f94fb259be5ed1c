/** The task store contract on the in-memory store, with a fake clock. */
import { createMemoryTaskStore } from '../../src/tasks/memory-store.ts';
import { runTaskStoreContract } from './store-contract.ts';

let now = Date.parse('2026-08-01T00:00:00Z');

runTaskStoreContract('memory', {
  async make() {
    const store = createMemoryTaskStore({ now: () => now });
    return { a: store, b: store };
  },
  async advance(ms) {
    now += ms;
  },
  now: () => now,
});
