/**
 * The one contract every task store keeps, run against each store by its own test file
 * (memory: store-memory.test.ts, Redis: store-redis.test.ts): durable create, atomic updates
 * under concurrent writers, expiry at the TTL from creation, and per-owner listing.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { parseMessage } from '../../src/base/json-ids.ts';
import type { TaskRecord, TaskStore } from '../../src/tasks/types.ts';

export interface TaskStoreFactory {
  /** Two stores over the same data (two replicas, for Redis; the same object, in memory). */
  make(): Promise<{ a: TaskStore; b: TaskStore }>;
  /** Lets `ms` pass for the store's clock (a fake clock, or real time). */
  advance(ms: number): Promise<void>;
  /** The clock the records are stamped with. */
  now(): number;
}

export function record(owner: string, now: number, overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    taskId: randomUUID(),
    owner,
    wire: '2026',
    protocolVersion: '2026-07-28',
    tool: 'slow_compute',
    args: { seconds: 1 },
    clientCapabilities: {},
    meta: {},
    requestId: 1,
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    pollIntervalMs: 1000,
    rounds: 0,
    ...overrides,
  };
}

export function runTaskStoreContract(name: string, factory: TaskStoreFactory): void {
  describe(`task store contract: ${name}`, () => {
    it('a created task is found at once by the other store, as stored', async () => {
      const { a, b } = await factory.make();
      const r = record(`owner-${randomUUID()}`, factory.now(), { args: { nested: [1, { x: 'y' }] } });
      await a.create(r);
      assert.deepEqual(await b.get(r.taskId), r);
      assert.equal(await b.get('no-such-task'), undefined);
    });

    it('an id past Number.MAX_SAFE_INTEGER (request id, progress token) is stored with its digits', async () => {
      const { a, b } = await factory.make();
      const id = parseMessage(
        '{"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/call","params":{"_meta":{"progressToken":-98765432109876543210}}}',
      ) as { id: TaskRecord['requestId']; params: { _meta: TaskRecord['meta'] } };
      const r = record(`owner-${randomUUID()}`, factory.now(), { requestId: id.id, meta: id.params._meta });
      await a.create(r);
      const got = await b.get(r.taskId);
      assert.equal(
        JSON.stringify([got?.requestId, got?.meta]),
        '[12345678901234567890,{"progressToken":-98765432109876543210}]',
      );
    });

    it('update applies a change atomically; concurrent writers all land; no change means unchanged', async () => {
      const { a, b } = await factory.make();
      const r = record(`owner-${randomUUID()}`, factory.now());
      await a.create(r);
      const writers = Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? a : b).update(r.taskId, (current) => ({ ...current, rounds: current.rounds + 1 })),
      );
      const results = await Promise.all(writers);
      assert.ok(results.every((res) => res?.changed === true));
      assert.equal((await a.get(r.taskId))?.rounds, 8);
      const same = await b.update(r.taskId, () => undefined);
      assert.equal(same?.changed, false);
      assert.equal(same?.record.rounds, 8);
      assert.equal(await a.update('no-such-task', (c) => c), undefined);
    });

    it('a task is kept for its TTL from creation, then gone for get, update and list', async () => {
      const { a, b } = await factory.make();
      const owner = `owner-${randomUUID()}`;
      // Short: the Redis store's clock is real time (Redis expires the keys itself).
      const r = record(owner, factory.now(), { ttlMs: 600 });
      await a.create(r);
      await b.update(r.taskId, (c) => ({ ...c, status: 'completed', result: { content: [] } }));
      await factory.advance(200);
      assert.equal(
        (await b.get(r.taskId))?.status,
        'completed',
        'an update does not shorten or extend the TTL',
      );
      await factory.advance(500);
      assert.equal(await a.get(r.taskId), undefined);
      assert.equal(await b.update(r.taskId, (c) => c), undefined);
      assert.deepEqual((await a.list(owner, undefined, 10)).tasks, []);
    });

    it("list pages an owner's tasks newest first, and only that owner's", async () => {
      const { a, b } = await factory.make();
      const owner = `owner-${randomUUID()}`;
      const start = factory.now();
      const mine = [0, 1, 2].map((i) => record(owner, start + i));
      for (const r of mine) await a.create(r);
      await b.create(record(`other-${randomUUID()}`, start + 5));
      const first = await b.list(owner, undefined, 2);
      assert.deepEqual(
        first.tasks.map((t) => t.taskId),
        [mine[2]?.taskId, mine[1]?.taskId],
      );
      assert.ok(first.nextCursor);
      const second = await a.list(owner, first.nextCursor, 2);
      assert.deepEqual(
        second.tasks.map((t) => t.taskId),
        [mine[0]?.taskId],
      );
      assert.equal(second.nextCursor, undefined);
      await assert.rejects(
        a.list(owner, 'not-a-cursor', 2),
        (e: Error & { code?: number }) => e.code === -32602,
      );
    });
  });
}
