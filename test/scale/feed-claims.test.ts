/**
 * One GET stream delivers a session's feed (src/scale/session-feed.ts `claim`), against a real
 * `redis-server`: a second fresh claim is refused while the first holds it; a resume from the
 * holder's claim or later takes it over, and the holder stops before the first message after
 * the takeover (so each message is delivered by one stream); a resume from before the claim
 * (a stream it displaced) or with another session's id takes nothing; a holder that stops
 * lets go at once, and one that died (no renewal) holds at most its lease; claims racing at
 * one instant have one winner; Redis away during a claim is a 503 that leaves nothing held.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { ProtocolError } from '../../src/base/errors.ts';
import type { JsonRpcMessage } from '../../src/base/jsonrpc.ts';
import type { FeedClaim, FeedEvent, SessionFeed } from '../../src/protocol/hub/session-streams.ts';
import { createRedisClient } from '../../src/redis/client.ts';
import { createPubSub, createSubscriberClient, type PubSub } from '../../src/redis/pubsub.ts';
import { createRedisSessionFeed } from '../../src/scale/session-feed.ts';
import { redisBusForFile } from '../helpers/redis-bus.ts';
import { startRedisServer } from '../helpers/redis-server.ts';
import { until } from '../helpers/until.ts';

const bus = redisBusForFile();
let prefixes = 0;

const note = (n: number): JsonRpcMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/resources/updated',
  params: { uri: `test://${n}` },
});

function makeFeed(options: { leaseMs?: number; client?: Redis; bus?: PubSub } = {}): SessionFeed {
  return createRedisSessionFeed({
    redis: options.client ?? bus.command,
    pubsub: options.bus ?? bus.pubsub,
    retention: 100,
    ttlMs: 60_000,
    pollMs: 200,
    leaseMs: options.leaseMs,
    keyPrefix: `claims${++prefixes}:`,
  });
}

/**
 * A GET stream's follower: from `from` with `claim`; `events` are its messages, `positions` the
 * ids of its own claim's position events (a resume passes its claim after the replay). `done`
 * settles when it ends.
 */
function holder(feed: SessionFeed, from: string, claim: FeedClaim) {
  const events: FeedEvent[] = [];
  const positions: string[] = [];
  const stop = new AbortController();
  const done = feed.follow(
    from,
    (e) => (e.message === undefined ? positions.push(e.id) : events.push(e)),
    stop.signal,
    claim,
  );
  return { events, positions, stop: () => stop.abort(), done };
}

const uris = (events: readonly FeedEvent[]) =>
  events.map((e) => (e.message as unknown as { params: { uri: string } }).params.uri);

/** Settles with 'ended' if `done` settles within `ms`, else 'running'. */
const settledWithin = (done: Promise<void>, ms: number) =>
  Promise.race([
    done.then(() => 'ended' as const),
    new Promise<'running'>((r) => setTimeout(() => r('running'), ms)),
  ]);

describe('claims on a session feed', () => {
  test('a second fresh claim is refused; a resume takes over, and each message is delivered once', async () => {
    const feed = makeFeed();
    const first = await feed.claim('s1', undefined);
    assert.ok(first);
    assert.equal(feed.sessionOf(first.mark), 's1');
    assert.equal(await feed.claim('s1', undefined), undefined, 'held: a fresh claim is refused');
    const old = holder(feed, first.mark, first);
    feed.push('s1', note(1));
    await until(() => old.events.length === 1, { message: 'the first message', timeoutMs: 10_000 });
    // The client resumes from its last event: the resume takes the feed over.
    const lastSeen = old.events[0]?.id as string;
    const second = await feed.claim('s1', undefined, lastSeen);
    assert.ok(second, 'a resume from the holder’s events takes over');
    // The old holder ends without anything pushed after the takeover.
    await old.done;
    const next = holder(feed, lastSeen, second);
    feed.push('s1', note(2));
    feed.push('s1', note(3));
    await until(() => next.events.length === 2, {
      message: 'the messages after the takeover',
      timeoutMs: 10_000,
    });
    assert.deepEqual(uris(old.events), ['test://1']);
    assert.deepEqual(uris(next.events), ['test://2', 'test://3']);
    // After its replay the resume passed its own claim, a position its client resumes from.
    assert.deepEqual(next.positions, [second.mark]);
    // A resume from before the new claim (the stream it displaced) takes nothing.
    assert.equal(await feed.claim('s1', undefined, first.mark), undefined);
    assert.equal(await settledWithin(next.done, 500), 'running');
    // One from that position (its connection dropped half-open) takes over while it runs.
    const third = await feed.claim('s1', undefined, second.mark);
    assert.ok(third);
    await next.done;
  });

  test('the old holder stops at the takeover even when it reads both in one batch', async () => {
    const feed = makeFeed();
    const first = await feed.claim('s2', undefined);
    assert.ok(first);
    // Messages, a takeover and more messages are all stored before the old holder reads.
    feed.push('s2', note(1));
    await until(async () => (await bus.command.xlen(`claims${prefixes}:feed:{s2}`)) === 2, {
      message: 'stored',
      timeoutMs: 10_000,
    });
    const second = await feed.claim('s2', undefined, first.mark);
    assert.ok(second);
    feed.push('s2', note(2));
    await until(async () => (await bus.command.xlen(`claims${prefixes}:feed:{s2}`)) === 4, {
      message: 'stored',
      timeoutMs: 10_000,
    });
    const old = holder(feed, first.mark, first);
    await old.done;
    assert.deepEqual(uris(old.events), ['test://1']);
    const next = holder(feed, first.mark, second);
    await until(() => next.events.length === 2, { message: 'the replay', timeoutMs: 10_000 });
    assert.deepEqual(uris(next.events), ['test://1', 'test://2']);
    next.stop();
    await next.done;
  });

  test('a resume with another session’s id takes nothing from that session', async () => {
    const feed = makeFeed();
    const a = await feed.claim('a', undefined);
    assert.ok(a);
    const held = holder(feed, a.mark, a);
    // Session b presents a's id: b's claim is fresh (b has no holder: granted), a's untouched.
    const b = await feed.claim('b', undefined, a.mark);
    assert.ok(b);
    assert.equal(feed.sessionOf(b.mark), 'b');
    assert.equal(await settledWithin(held.done, 500), 'running');
    feed.push('a', note(1));
    await until(() => held.events.length === 1, { message: 'a still delivers', timeoutMs: 10_000 });
    held.stop();
    await held.done;
  });

  test('a holder that stops lets go at once; one that died holds no longer than its lease', async () => {
    const feed = makeFeed({ leaseMs: 900 });
    const first = await feed.claim('s3', undefined);
    assert.ok(first);
    const h = holder(feed, first.mark, first);
    h.stop();
    await h.done;
    await until(async () => (await feed.claim('s3', undefined)) !== undefined, {
      message: 'a fresh claim after the holder stopped',
      timeoutMs: 10_000,
    });
    // A claim nobody follows or renews: its replica died. Refused now, granted once it lapses.
    const dead = await feed.claim('s4', undefined);
    assert.ok(dead);
    const since = Date.now();
    assert.equal(await feed.claim('s4', undefined), undefined);
    await until(async () => (await feed.claim('s4', undefined)) !== undefined, {
      message: 'a fresh claim after the lease lapsed',
      timeoutMs: 15_000,
      intervalMs: 100,
    });
    assert.ok(Date.now() - since >= 600, 'not before the lease ran out');
    // A follower renews its lease: held past three leases' life (its renewals are counted on
    // the holder hash's lease end, which moves on each time).
    const live = await feed.claim('s5', undefined);
    assert.ok(live);
    const renewing = holder(feed, live.mark, live);
    const holderKey = `claims${prefixes}:feed:{s5}:holder`;
    const leaseEnds = new Set<string>();
    await until(
      async () => {
        assert.equal(await feed.claim('s5', undefined), undefined, 'renewed while it runs');
        leaseEnds.add((await bus.command.hget(holderKey, 'u')) ?? '');
        return leaseEnds.size > 3;
      },
      { message: 'three renewals', timeoutMs: 30_000, intervalMs: 50 },
    );
    renewing.stop();
    await renewing.done;
  });

  test('the stream a fresh one followed, resumed after it, takes over without a loss or a repeat', async () => {
    const feed = makeFeed();
    const p = await feed.claim('s6', undefined);
    assert.ok(p);
    const first = holder(feed, p.mark, p);
    feed.push('s6', note(1));
    await until(() => first.events.length === 1, { message: 'the first message', timeoutMs: 10_000 });
    // Its connection closes (a replica's drain, say): it lets go.
    first.stop();
    await first.done;
    feed.push('s6', note(2));
    // The client opens a fresh stream before it resumes the one it had.
    const f = await until(() => feed.claim('s6', undefined), {
      message: 'the fresh claim',
      timeoutMs: 10_000,
    });
    const fresh = holder(feed, f.mark, f);
    feed.push('s6', note(3));
    await until(() => fresh.events.length === 1, {
      message: 'the fresh stream’s message',
      timeoutMs: 10_000,
    });
    // Then it resumes the first stream from its last event: it takes over, replays what nobody
    // delivered (2), not what the fresh one did (3), and goes on (4).
    const r = await feed.claim('s6', undefined, first.events[0]?.id);
    assert.ok(r, 'the resume of the stream the fresh one followed takes over');
    await fresh.done;
    const resumed = holder(feed, first.events[0]?.id as string, r);
    feed.push('s6', note(4));
    await until(() => resumed.events.length === 2, { message: 'the missed and the new', timeoutMs: 10_000 });
    assert.deepEqual(uris(resumed.events), ['test://2', 'test://4']);
    assert.deepEqual(uris([...first.events, ...fresh.events, ...resumed.events]).sort(), [
      'test://1',
      'test://2',
      'test://3',
      'test://4',
    ]);
    // The fresh stream's client reconnects it: it comes from before the takeover, refused.
    assert.equal(await feed.claim('s6', undefined, fresh.events[0]?.id), undefined);
    resumed.stop();
    await resumed.done;
  });

  test('claims racing at one instant: exactly one is granted', async () => {
    const feed = makeFeed();
    const claims = await Promise.all(Array.from({ length: 8 }, () => feed.claim('race', undefined)));
    assert.equal(claims.filter((c) => c !== undefined).length, 1);
    // Resumes racing from one id: the first takes over, and the rest then come from before
    // its claim: refused.
    const first = claims.find((c) => c !== undefined) as FeedClaim;
    const resumes = await Promise.all(
      Array.from({ length: 8 }, () => feed.claim('race', undefined, first.mark)),
    );
    assert.equal(resumes.filter((c) => c !== undefined).length, 1);
    assert.equal(await feed.claim('race', undefined), undefined);
  });

  test('many takeovers in a row: every message once, from the holder of its time', async () => {
    const feed = makeFeed();
    let claim = await feed.claim('many', undefined);
    assert.ok(claim);
    let current = holder(feed, claim.mark, claim);
    const delivered: FeedEvent[] = [];
    for (let i = 1; i <= 20; i++) {
      feed.push('many', note(i));
      await until(() => current.events.length === 1, { message: `message ${i}`, timeoutMs: 10_000 });
      const last = current.events[0]?.id as string;
      const next = await feed.claim('many', undefined, last);
      assert.ok(next, `takeover ${i}`);
      await current.done;
      delivered.push(...current.events);
      claim = next;
      current = holder(feed, last, next);
    }
    current.stop();
    await current.done;
    delivered.push(...current.events);
    assert.deepEqual(
      uris(delivered),
      Array.from({ length: 20 }, (_, i) => `test://${i + 1}`),
    );
  });

  test('Redis away during a claim: 503, and nothing is left held once it is back', async () => {
    const own = await startRedisServer();
    const client = createRedisClient(own.url);
    await client.connect();
    const ownBus = createPubSub(client, createSubscriberClient(own.url));
    try {
      const feed = makeFeed({ client, bus: ownBus });
      await own.stop('SIGKILL');
      await assert.rejects(feed.claim('down', undefined), (err: unknown) => {
        assert.ok(err instanceof ProtocolError);
        assert.equal(err.httpStatus, 503);
        return true;
      });
      await own.restart();
      await until(
        async () => (await feed.claim('down', undefined).catch(() => 'unreachable')) !== 'unreachable',
        {
          message: 'a claim once Redis is back',
          timeoutMs: 20_000,
          intervalMs: 200,
        },
      );
    } finally {
      await ownBus.close();
      client.disconnect();
      await own.stop();
    }
  });
});
