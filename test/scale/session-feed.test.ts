/**
 * The sessions' feeds in Redis (src/scale/session-feed.ts) against a real `redis-server`: a
 * message waits in an open feed for whoever follows it, from any position, exactly once and in
 * order; a feed nobody opened takes nothing; closing a feed ends its followers; the open feeds
 * are listed with who opened them, and the expired ones are swept.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonRpcMessage } from '../../src/base/jsonrpc.ts';
import type { FeedEvent, SessionFeed } from '../../src/protocol/hub/session-streams.ts';
import { createRedisSessionFeed } from '../../src/scale/session-feed.ts';
import { redisBusForFile } from '../helpers/redis-bus.ts';
import { until } from '../helpers/until.ts';

const bus = redisBusForFile();
let prefixes = 0;

const note = (n: number): JsonRpcMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/resources/updated',
  params: { uri: `test://${n}` },
});

function makeFeed(options: { ttlMs?: number; now?: () => number } = {}): SessionFeed {
  return createRedisSessionFeed({
    redis: bus.command,
    pubsub: bus.pubsub,
    retention: 100,
    ttlMs: options.ttlMs ?? 60_000,
    pollMs: 200,
    keyPrefix: `feed${++prefixes}:`,
    now: options.now,
  });
}

/** Follows from `from` into an array until stopped; `done` settles when the follow returns. */
function follower(feed: SessionFeed, from: string) {
  const events: FeedEvent[] = [];
  const stop = new AbortController();
  const done = feed.follow(from, (e) => events.push(e), stop.signal);
  return { events, stop: () => stop.abort(), done };
}

const uris = (events: readonly FeedEvent[]) =>
  events.map((e) => (e.message as unknown as { params: { uri: string } }).params.uri);

describe('the Redis session feed', () => {
  test('a message pushed to an open feed reaches every follower, from any position, once and in order', async () => {
    const feed = makeFeed();
    const start = await feed.open('s1', undefined);
    assert.equal(feed.sessionOf(start), 's1');
    feed.push('s1', note(1));
    const early = follower(feed, start);
    await until(() => early.events.length === 1, { message: 'the first message', timeoutMs: 10_000 });
    feed.push('s1', note(2));
    feed.push('s1', note(3));
    await until(() => early.events.length === 3, { message: 'all three', timeoutMs: 10_000 });
    assert.deepEqual(uris(early.events), ['test://1', 'test://2', 'test://3']);

    // A follower resuming after the first event gets the rest, and what comes next.
    const resumed = follower(feed, early.events[0]?.id as string);
    await until(() => resumed.events.length === 2, { message: 'the replay', timeoutMs: 10_000 });
    feed.push('s1', note(4));
    await until(() => resumed.events.length === 3 && early.events.length === 4, {
      message: 'the fourth on both',
      timeoutMs: 10_000,
    });
    assert.deepEqual(uris(resumed.events), ['test://2', 'test://3', 'test://4']);
    const ids = early.events.map((e) => e.id);
    assert.equal(new Set(ids).size, 4);
    early.stop();
    resumed.stop();
    await Promise.all([early.done, resumed.done]);
  });

  test('a feed nobody opened takes nothing; opening it again keeps what it holds', async () => {
    const feed = makeFeed();
    feed.push('never', note(1));
    const start = await feed.open('never', undefined);
    const f = follower(feed, start);
    feed.push('never', note(2));
    await until(() => f.events.length === 1, { message: 'the message after the open', timeoutMs: 10_000 });
    assert.deepEqual(uris(f.events), ['test://2']);
    // A second open (another GET stream) does not move or lose anything.
    const again = await feed.open('never', undefined);
    assert.equal(again, f.events[0]?.id);
    f.stop();
    await f.done;
  });

  test('closing a feed ends its followers and drops it from the open feeds', async () => {
    const feed = makeFeed();
    const start = await feed.open('s2', { clientId: 'ada', scopes: ['read'] });
    assert.deepEqual(
      (await feed.sessions()).find((s) => s.sessionId === 's2'),
      { sessionId: 's2', identity: { clientId: 'ada', scopes: ['read'] } },
    );
    const f = follower(feed, start);
    await feed.close('s2');
    await f.done;
    assert.equal((await feed.sessions()).length, 0);
    feed.push('s2', note(1));
    assert.deepEqual(f.events, []);
  });

  test('feeds nobody renewed within their life are swept from the open feeds', async () => {
    let clock = 1_000_000;
    const feed = makeFeed({ ttlMs: 5000, now: () => clock });
    await feed.open('old', undefined);
    clock += 4000;
    await feed.open('new', undefined);
    clock += 2000;
    assert.deepEqual(
      (await feed.sessions()).map((s) => s.sessionId),
      ['new'],
    );
  });

  test('ids that are not a feed’s are told apart', () => {
    const feed = makeFeed();
    for (const id of ['', 'x', 's1_1-0', 's1.feed_', 's1.feed_abc', '.feed_1-0']) {
      assert.equal(feed.sessionOf(id), undefined, id);
    }
    assert.equal(feed.sessionOf('a.b.feed_12-3'), 'a.b');
  });
});
