/**
 * One contract for every EventStore (in memory, in Redis Streams), plus what only the shared
 * store does: `follow` a stream that another replica is still writing, receiving the stored
 * rest and then each later event exactly once, until the stream is released.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import type { JsonRpcMessage } from '../../src/base/jsonrpc.ts';
import { createRedisClient } from '../../src/ratelimit/redis-client.ts';
import { createPubSub, createSubscriberClient, type PubSub } from '../../src/scale/pubsub.ts';
import { createRedisEventStore } from '../../src/scale/redis-event-store.ts';
import type { EventStore, StoredEvent } from '../../src/transports/deps.ts';
import { createMemoryEventStore } from '../../src/transports/edge/event-store.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';
import { until } from '../helpers/until.ts';

let redis: RedisServer;
let command: Redis;
let pubsub: PubSub;
let prefixes = 0;

before(async () => {
  redis = await startRedisServer();
  command = createRedisClient(redis.url);
  await command.connect();
  pubsub = createPubSub(command, createSubscriberClient(redis.url));
});
after(async () => {
  await pubsub?.close();
  command?.disconnect();
  await redis?.stop();
});

const note = (n: number): JsonRpcMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 't', progress: n },
});

const makers: { name: string; make(graceMs: number): EventStore }[] = [
  { name: 'memory', make: (graceMs) => createMemoryEventStore({ retention: 100, graceMs }) },
  {
    name: 'redis',
    make: (graceMs) =>
      createRedisEventStore({
        redis: command,
        pubsub,
        retention: 100,
        ttlMs: 60_000,
        graceMs,
        pollMs: 200,
        keyPrefix: `ev${++prefixes}:`,
      }),
  },
];

for (const maker of makers) {
  describe(`EventStore contract: ${maker.name}`, () => {
    test('events after an id, in order; the priming event has no message', async () => {
      const store = maker.make(60_000);
      const priming = await store.append('s1', undefined);
      const one = await store.append('s1', note(1));
      const two = await store.append('s1', note(2));
      assert.equal(new Set([priming, one, two]).size, 3);
      assert.equal(await store.streamOf(one), 's1');
      const rest = await store.after(priming);
      assert.deepEqual(rest, [
        { id: one, message: note(1) },
        { id: two, message: note(2) },
      ]);
      assert.deepEqual(await store.after(two), []);
    });

    test('unknown ids: no stream, nothing after them', async () => {
      const store = maker.make(60_000);
      for (const id of ['nope', 'nope_1', 'nope_1-0', '_1', '']) {
        assert.equal(await store.streamOf(id), undefined, id);
        assert.deepEqual(await store.after(id), [], id);
      }
    });

    test('a released stream is forgotten after the grace period', async () => {
      const store = maker.make(50);
      const id = await store.append('s2', note(1));
      await store.release('s2');
      assert.equal(await store.streamOf(id), 's2', 'still there for late reconnects');
      await until(async () => (await store.streamOf(id)) === undefined, {
        timeoutMs: 2000,
        message: 'the released stream was never forgotten',
      });
    });
  });
}

describe('EventStore in Redis: following a stream another replica writes', () => {
  /** Follows `from` in the background, collecting events until the follow ends. */
  function follower(store: EventStore, from: string) {
    const seen: StoredEvent[] = [];
    const stop = new AbortController();
    const done = store.follow?.(from, (e) => seen.push(e), stop.signal);
    assert.ok(done, 'the shared store can follow');
    return { seen, stop, done };
  }

  test('the stored rest, then live events exactly once, until the release', async () => {
    const writer = makers[1]!.make(60_000);
    const reader = createRedisEventStore({
      redis: command,
      pubsub,
      retention: 100,
      ttlMs: 60_000,
      pollMs: 5000, // a long poll: the live events must come from the wake-ups
      keyPrefix: `ev${prefixes}:`,
    });
    const priming = await writer.append('live', undefined);
    const one = await writer.append('live', note(1));
    const f = follower(reader, priming);
    await until(() => f.seen.length === 1, { message: 'the follower never saw the first event' });
    const two = await writer.append('live', note(2));
    const three = await writer.append('live', note(3));
    await until(() => f.seen.length === 3, { message: 'the follower never saw all three events' });
    await writer.release('live');
    await f.done;
    assert.deepEqual(
      f.seen.map((e) => e.id),
      [one, two, three],
    );
    assert.deepEqual(
      f.seen.map((e) => e.message),
      [note(1), note(2), note(3)],
    );
  });

  test('a finished stream: the rest, then the follow ends by itself', async () => {
    const store = makers[1]!.make(60_000);
    const priming = await store.append('done', undefined);
    const one = await store.append('done', note(1));
    await store.release('done');
    const f = follower(store, priming);
    await f.done;
    assert.deepEqual(
      f.seen.map((e) => e.id),
      [one],
    );
  });

  test('the client goes away: the follow ends', async () => {
    const store = makers[1]!.make(60_000);
    const priming = await store.append('left', undefined);
    const f = follower(store, priming);
    f.stop.abort();
    await f.done;
    assert.deepEqual(f.seen, []);
  });

  test('a stream whose replica died (never released) ends the follow when it expires', async () => {
    const store = createRedisEventStore({
      redis: command,
      pubsub,
      retention: 100,
      ttlMs: 300,
      pollMs: 100,
      keyPrefix: `ev${++prefixes}:`,
    });
    const priming = await store.append('dead', undefined);
    const f = follower(store, priming);
    await f.done;
    assert.deepEqual(f.seen, []);
  });
});
