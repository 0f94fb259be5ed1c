/**
 * One contract for every EventStore (in memory, in Redis Streams), plus what only the shared
 * store does: `follow` a stream that another replica is still writing, receiving the stored
 * rest and then each later event exactly once, until the stream is released.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonRpcMessage } from '../../src/base/jsonrpc.ts';
import type { EventStore, StoredEvent } from '../../src/transports/deps.ts';
import { createMemoryEventStore } from '../../src/transports/edge/event-store.ts';
import { createRedisEventStore } from '../../src/transports/edge/redis-event-store.ts';
import { redisBusForFile } from '../helpers/redis-bus.ts';
import { until } from '../helpers/until.ts';

const bus = redisBusForFile();
let prefixes = 0;

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
        redis: bus.command,
        pubsub: bus.pubsub,
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
      // A grace long enough that a loaded machine still asks within it (at 50 ms the key had
      // expired before the first question, once, beside three other quick lanes).
      const store = maker.make(1000);
      const id = await store.append('s2', note(1));
      await store.release('s2');
      assert.equal(await store.streamOf(id), 's2', 'still there for late reconnects');
      await until(async () => (await store.streamOf(id)) === undefined, {
        timeoutMs: 15_000,
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
      redis: bus.command,
      pubsub: bus.pubsub,
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
      redis: bus.command,
      pubsub: bus.pubsub,
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

describe('EventStore in Redis: a reply stream whose replica stopped', () => {
  const answer = { jsonrpc: '2.0' as const, id: 7, result: { content: [] } };
  /** A writer on replica `w` and readers on `r`, with `alive` deciding who runs. */
  function pair(alive: Set<string>) {
    const keyPrefix = `ev${++prefixes}:`;
    const make = (replicaId: string) =>
      createRedisEventStore({
        redis: bus.command,
        pubsub: bus.pubsub,
        retention: 100,
        ttlMs: 60_000,
        pollMs: 100,
        keyPrefix,
        replicaId,
        isAlive: async (replica) => alive.has(replica),
      });
    return { writer: make('w'), reader: make('r') };
  }
  function follow(store: EventStore, from: string) {
    const seen: StoredEvent[] = [];
    const done = store.follow?.(from, (e) => seen.push(e), new AbortController().signal);
    assert.ok(done);
    return { seen, done };
  }

  test('its followers end it with one lost error for its request, written once for all of them', async () => {
    const alive = new Set(['w', 'r']);
    const { writer, reader } = pair(alive);
    const priming = await writer.append('cut', undefined, { answers: 7, seq: 1 });
    const one = await writer.append('cut', note(1), { answers: 7, seq: 2 });
    const a = follow(reader, priming);
    const b = follow(reader, one);
    await until(() => a.seen.length === 1, { message: 'the first event' });
    alive.delete('w');
    await Promise.all([a.done, b.done]);
    const lost = a.seen.at(-1)?.message as { id: number; error: { code: number } };
    assert.equal(lost.id, 7);
    assert.equal(lost.error.code, -32044);
    assert.deepEqual(b.seen, a.seen.slice(1), 'both followers read the same single error');
    assert.deepEqual(await reader.after(priming), a.seen, 'and a late reconnect replays it once');
  });

  test('one that holds its answer already only ends: no second answer', async () => {
    const alive = new Set(['r']);
    const { writer, reader } = pair(alive);
    const priming = await writer.append('answered', undefined, { answers: 7, seq: 1 });
    await writer.append('answered', answer, { answers: 7, seq: 2 });
    const f = follow(reader, priming);
    await f.done;
    assert.deepEqual(
      f.seen.map((e) => e.message),
      [answer],
    );
  });

  test('a live writer is waited for, and an append tried again is kept once', async () => {
    const alive = new Set(['w', 'r']);
    const { writer, reader } = pair(alive);
    const priming = await writer.append('slow', undefined, { answers: 7, seq: 1 });
    const f = follow(reader, priming);
    const first = await writer.append('slow', note(1), { answers: 7, seq: 2 });
    const again = await writer.append('slow', note(1), { answers: 7, seq: 2 });
    assert.equal(again, first, 'the same event, the same entry');
    await writer.append('slow', answer, { answers: 7, seq: 3 });
    await writer.release('slow');
    await f.done;
    assert.deepEqual(
      f.seen.map((e) => e.message),
      [note(1), answer],
    );
  });
});
