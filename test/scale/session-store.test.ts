/**
 * One contract for every SessionStore (in memory, in Redis), plus what only the shared store
 * promises: two replicas see one session, their changes merge, the cap counts sessions of
 * every replica, and a Redis outage answers 503 (-32039) instead of hanging a request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { ErrorCode, ProtocolError } from '../../src/base/errors.ts';
import { createRedisSessionStore } from '../../src/protocol/session/redis-store.ts';
import {
  createMemorySessionStore,
  type SessionStore,
  sessionOwner,
} from '../../src/protocol/session/store.ts';
import { createRedisClient } from '../../src/redis/client.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';
import { until } from '../helpers/until.ts';

let redis: RedisServer;
const clients: Redis[] = [];
let prefixes = 0;

before(async () => {
  redis = await startRedisServer();
});
after(async () => {
  for (const c of clients) c.disconnect();
  await redis?.stop();
});

async function client(): Promise<Redis> {
  const c = createRedisClient(redis.url);
  c.on('error', () => {});
  await c.connect();
  clients.push(c);
  return c;
}

interface Maker {
  name: string;
  /** A store; `peer` shares its state with the last one made (another replica). */
  make(options: { idleMs: number; maxSessions: number; peer?: boolean }): Promise<SessionStore>;
}

let lastPrefix = '';
const makers: Maker[] = [
  {
    name: 'memory',
    async make({ idleMs, maxSessions }) {
      return createMemorySessionStore({ idleMs, maxSessions });
    },
  },
  {
    name: 'redis',
    async make({ idleMs, maxSessions, peer }) {
      if (!peer) lastPrefix = `test${++prefixes}:`;
      return createRedisSessionStore({ redis: await client(), idleMs, maxSessions, keyPrefix: lastPrefix });
    },
  },
];

for (const maker of makers) {
  describe(`SessionStore contract: ${maker.name}`, () => {
    test('create, then get what save persisted', async () => {
      const store = await maker.make({ idleMs: 60_000, maxSessions: 10 });
      const session = await store.create();
      assert.ok(session);
      assert.equal(session.initialized, false);
      session.protocolVersion = '2025-11-25';
      session.clientCapabilities = { elicitation: {} };
      session.clientInfo = { name: 'c', version: '1' };
      session.initialized = true;
      session.owner = sessionOwner({ clientId: 'app', subject: 'user-1', scopes: [] });
      await store.save(session);
      session.logLevel = 'warning';
      session.subscriptions.add('test://a');
      session.subscriptions.add('test://b');
      await store.save(session);
      session.subscriptions.delete('test://a');
      await store.save(session);

      const again = await store.get(session.id);
      assert.ok(again);
      assert.equal(again.id, session.id);
      assert.equal(again.protocolVersion, '2025-11-25');
      assert.deepEqual(again.clientCapabilities, { elicitation: {} });
      assert.deepEqual(again.clientInfo, { name: 'c', version: '1' });
      assert.equal(again.initialized, true);
      assert.equal(again.logLevel, 'warning');
      assert.deepEqual([...again.subscriptions], ['test://b']);
      // The identity it is bound to, so every replica refuses another one.
      assert.equal(again.owner, session.owner);
      assert.notEqual(again.owner, sessionOwner({ clientId: 'app', subject: 'user-2', scopes: [] }));
      assert.equal(await store.get('no-such-session'), undefined);
    });

    test('delete: gone at once; a second delete says so', async () => {
      const store = await maker.make({ idleMs: 60_000, maxSessions: 10 });
      const session = await store.create();
      assert.ok(session);
      assert.equal(await store.delete(session.id), true);
      assert.equal(await store.get(session.id), undefined);
      assert.equal(await store.delete(session.id), false);
    });

    test('the cap: create answers undefined when full, and works again after a delete', async () => {
      const store = await maker.make({ idleMs: 60_000, maxSessions: 2 });
      const a = await store.create();
      const b = await store.create();
      assert.ok(a && b);
      assert.equal(await store.create(), undefined);
      await store.delete(a.id);
      assert.ok(await store.create());
    });
  });
}

describe('SessionStore in Redis: what replicas share', () => {
  test('idle expiry is refreshed by every get', async () => {
    // Real time: Redis expires the keys itself (PEXPIRE), so the store's `now` option cannot
    // fake it. A late timer only makes the "expired" step surer; the "alive" steps have half
    // the idle time as margin, which must cover a late reply to the command that set the
    // expiry (300 ms did not, at a load average of 25).
    const idleMs = 2000;
    const store = await makers[1]!.make({ idleMs, maxSessions: 10 });
    const session = await store.create();
    assert.ok(session);
    let last = Date.now();
    const idleFor = () => `idle for ${Date.now() - last} ms of ${idleMs}`;
    await new Promise((r) => setTimeout(r, idleMs / 2));
    assert.ok(await store.get(session.id), `alive within the idle time (${idleFor()})`);
    last = Date.now();
    await new Promise((r) => setTimeout(r, idleMs / 2));
    // Past idleMs since create: alive only because the get above refreshed it.
    assert.ok(await store.get(session.id), `the get above refreshed it (${idleFor()})`);
    await new Promise((r) => setTimeout(r, idleMs + 100));
    assert.equal(await store.get(session.id), undefined, 'idle for longer than idleMs: expired');
  });

  test('a session held by a request in flight outlives the idle time; released, it expires', async () => {
    // The hold renews the TTL a third of idleMs apart: 3 s leaves a loaded machine's timers room.
    const idleMs = 3000;
    const store = await makers[1]!.make({ idleMs, maxSessions: 10 });
    const session = await store.create();
    assert.ok(session);
    const raw = await client();
    const key = `${lastPrefix}session:{${session.id}}`;
    const release = store.hold(session);
    const started = Date.now();
    // Nothing reads the session meanwhile: only the hold keeps its keys alive.
    await until(() => Date.now() - started > idleMs * 2, { timeoutMs: 20_000, message: 'time did not pass' });
    assert.equal(await raw.exists(key), 1, 'held: alive past the idle time');
    release();
    await until(async () => (await raw.exists(key)) === 0, {
      timeoutMs: 30_000,
      message: 'the released session never expired',
    });
    assert.equal(await store.get(session.id), undefined);
  });

  test('two replicas: one session; their concurrent changes merge; delete on one ends it on both', async () => {
    const a = await makers[1]!.make({ idleMs: 60_000, maxSessions: 10 });
    const b = await makers[1]!.make({ idleMs: 60_000, maxSessions: 10, peer: true });
    const created = await a.create();
    assert.ok(created);
    created.initialized = true;
    created.protocolVersion = '2025-11-25';
    await a.save(created);

    const onA = await a.get(created.id);
    const onB = await b.get(created.id);
    assert.ok(onA && onB);
    assert.equal(onB.initialized, true);
    onA.logLevel = 'error';
    onB.subscriptions.add('test://watched');
    await Promise.all([a.save(onA), b.save(onB)]);
    const merged = await a.get(created.id);
    assert.equal(merged?.logLevel, 'error');
    assert.deepEqual([...(merged?.subscriptions ?? [])], ['test://watched']);

    assert.equal(await b.delete(created.id), true);
    assert.equal(await a.get(created.id), undefined);
  });

  test('the cap counts the sessions of every replica', async () => {
    const a = await makers[1]!.make({ idleMs: 60_000, maxSessions: 2 });
    const b = await makers[1]!.make({ idleMs: 60_000, maxSessions: 2, peer: true });
    assert.ok(await a.create());
    assert.ok(await b.create());
    assert.equal(await a.create(), undefined);
    assert.equal(await b.create(), undefined);
  });

  test('Redis away or hung: every operation fails fast with 503 (-32039); back: it works again', async () => {
    const own = await startRedisServer();
    const c = createRedisClient(own.url);
    c.on('error', () => {});
    await c.connect();
    try {
      const store = createRedisSessionStore({ redis: c, idleMs: 60_000, maxSessions: 10 });
      const session = await store.create();
      assert.ok(session);
      const unavailable = (err: unknown) =>
        err instanceof ProtocolError &&
        err.code === ErrorCode.ServiceUnavailable &&
        err.httpStatus === 503 &&
        err.httpHeaders?.['retry-after'] === '1';

      own.pause(); // hung: the connection stays open, nothing answers (command timeout)
      await assert.rejects(store.get(session.id), unavailable);
      own.resume();
      await own.stop();
      await assert.rejects(store.create(), unavailable);
      await assert.rejects(store.get(session.id), unavailable);
      await assert.rejects(store.save({ ...session, logLevel: 'error' }), unavailable);
      await assert.rejects(store.delete(session.id), unavailable);

      await own.restart();
      await until(() => c.status === 'ready', {
        message: 'the client never reconnected to the restarted Redis',
      });
      assert.ok(await store.create(), 'creates sessions again once Redis is back');
    } finally {
      c.disconnect();
      await own.stop();
    }
  });
});
