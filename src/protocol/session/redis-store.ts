/**
 * 2025-wire sessions in Redis, so any replica serves any request of a session. A session is
 * a hash (negotiated version, client capabilities and info, initialised flag, log level)
 * plus a set of subscribed URIs (`session:{<id>}` and `session:{<id>}:subs`: one hash tag,
 * one slot on a Cluster), both expiring `idleMs` after the last access (every `get`
 * refreshes them). `save` writes only what changed since the session was read, so two
 * replicas changing different things at once (a log level here, a subscription there) do
 * not overwrite each other. The cap on open sessions is counted in a sorted set of expiry
 * times, checked atomically on create: best effort, since an entry there outlives a session
 * deleted by expiry until the next create sweeps it.
 *
 * Every command fails fast while Redis is away (the client has no offline queue), and the
 * store answers with a 503 ProtocolError (-32039, Retry-After) rather than hang a request.
 */

import type { Redis } from 'ioredis';
import { Refusal } from '../../base/refusals.ts';
import type { ClientCapabilities, Implementation } from '../../base/spec-types.ts';
import type { LogLevel } from '../../base/types.ts';
import { replyValues } from '../../redis/replies.ts';
import { recorded, type StoreHealth } from '../../redis/store-health.ts';
import { newSession, type Session, type SessionStore } from './store.ts';

export interface RedisSessionStoreOptions {
  redis: Redis;
  /** MCP_SESSION_IDLE_MS */
  idleMs: number;
  /** MCP_MAX_SESSIONS, across every replica. */
  maxSessions: number;
  /** Default `mcp-toolkit:`. */
  keyPrefix?: string;
  health?: StoreHealth;
  now?: () => number;
  /**
   * Called after a session is created, before it is answered; rejects when the write is not
   * safe yet (through Sentinel: no replica has it, src/scale/durable.ts).
   */
  durable?: () => Promise<void>;
}

/** The fields of a session hash, as strings. */
interface Fields {
  init: string;
  v: string;
  caps: string;
  info: string;
  level: string;
  owner: string;
}

interface Snapshot {
  fields: Fields;
  subs: Set<string>;
}

// Sweeps expired entries of the index, refuses at the cap, else records the new session.
// One key (a script's keys share a hash slot on a Cluster): the session's own hash is
// written next. KEYS: index. ARGV: now, expiresAt, max, id, idleMs.
const ADMIT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local count = redis.call('ZCARD', KEYS[1])
if count >= tonumber(ARGV[3]) then return -1 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return count + 1
`;

function fieldsOf(session: Session): Fields {
  return {
    init: session.initialized ? '1' : '0',
    v: session.protocolVersion,
    caps: JSON.stringify(session.clientCapabilities),
    info: session.clientInfo === undefined ? '' : JSON.stringify(session.clientInfo),
    level: session.logLevel ?? '',
    owner: session.owner ?? '',
  };
}

/**
 * @example
 * const sessions = createRedisSessionStore({ redis, idleMs: settings.MCP_SESSION_IDLE_MS, maxSessions: settings.MCP_MAX_SESSIONS });
 */
export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  if (!(options.idleMs > 0) || !(options.maxSessions > 0)) {
    throw new RangeError('createRedisSessionStore: idleMs and maxSessions must be positive');
  }
  const { redis, idleMs, health } = options;
  const now = options.now ?? Date.now;
  const prefix = options.keyPrefix ?? 'mcp-toolkit:';
  const index = `${prefix}sessions`;
  // A session's two keys share a hash tag, so one MULTI reads or writes both on a Cluster.
  const keyOf = (id: string) => `${prefix}session:{${id}}`;
  const subsOf = (id: string) => `${prefix}session:{${id}}:subs`;
  const loaded = new WeakMap<Session, Snapshot>();
  let count = 0;
  /** Sessions with a request running here, and the timer that keeps their keys alive. */
  const held = new Map<string, { count: number; timer: NodeJS.Timeout | undefined }>();
  /** Renews a live session's TTL (XX: never brings a deleted one back into the index). */
  const renew = async (id: string) => {
    if ((await redis.exists(keyOf(id))) === 0) return;
    await redis.multi().pexpire(keyOf(id), idleMs).pexpire(subsOf(id), idleMs).exec();
    await redis.zadd(index, 'XX', now() + idleMs, id);
  };

  /** Runs a store operation; a Redis failure becomes the 503 the client sees. */
  const guarded = <T>(run: () => Promise<T>): Promise<T> =>
    recorded(health, run, () => Refusal.storeUnavailable('the session store'));

  return {
    create() {
      return guarded(async () => {
        const session = newSession();
        session.lastSeen = now();
        const admitted = (await redis.eval(
          ADMIT,
          1,
          index,
          now(),
          now() + idleMs,
          options.maxSessions,
          session.id,
          idleMs,
        )) as number;
        if (admitted < 0) return undefined;
        const key = keyOf(session.id);
        replyValues(
          await redis
            .multi()
            .hset(key, 'init', '0', 'v', '', 'caps', '{}', 'info', '', 'level', '', 'owner', '')
            .pexpire(key, idleMs)
            .exec(),
          'session create',
        );
        await options.durable?.();
        count = admitted;
        loaded.set(session, { fields: fieldsOf(session), subs: new Set() });
        return session;
      });
    },

    get(id) {
      return guarded(async () => {
        const [hash, subs] = replyValues(
          await redis
            .multi()
            .hgetall(keyOf(id))
            .smembers(subsOf(id))
            .pexpire(keyOf(id), idleMs)
            .pexpire(subsOf(id), idleMs)
            .exec(),
        ) as [Record<string, string>, string[]];
        // The index is another key (another slot on a Cluster): refreshed on its own.
        await redis.zadd(index, 'XX', now() + idleMs, id);
        // No `init` field: never created, expired, or deleted (a late save may leave a stub).
        if (hash.init === undefined) return undefined;
        const session = newSession(id);
        session.initialized = hash.init === '1';
        session.protocolVersion = hash.v ?? '';
        session.clientCapabilities = JSON.parse(hash.caps || '{}') as ClientCapabilities;
        session.clientInfo = hash.info ? (JSON.parse(hash.info) as Implementation) : undefined;
        session.logLevel = hash.level ? (hash.level as LogLevel) : undefined;
        session.subscriptions = new Set(subs);
        session.owner = hash.owner || undefined;
        session.lastSeen = now();
        loaded.set(session, { fields: fieldsOf(session), subs: new Set(subs) });
        return session;
      });
    },

    save(session) {
      return guarded(async () => {
        const before = loaded.get(session);
        const fields = fieldsOf(session);
        const changed: string[] = [];
        for (const [k, v] of Object.entries(fields)) {
          if (before?.fields[k as keyof Fields] !== v) changed.push(k, v);
        }
        const added = [...session.subscriptions].filter((u) => !before?.subs.has(u));
        const removed = [...(before?.subs ?? [])].filter((u) => !session.subscriptions.has(u));
        if (changed.length === 0 && added.length === 0 && removed.length === 0) return;
        const tx = redis.multi();
        if (changed.length > 0) tx.hset(keyOf(session.id), ...changed).pexpire(keyOf(session.id), idleMs);
        if (added.length > 0) tx.sadd(subsOf(session.id), ...added);
        if (removed.length > 0) tx.srem(subsOf(session.id), ...removed);
        tx.pexpire(subsOf(session.id), idleMs);
        replyValues(await tx.exec(), 'transaction');
        loaded.set(session, { fields, subs: new Set(session.subscriptions) });
      });
    },

    hold(session) {
      // Redis expires the keys by their TTL, which knows nothing of the call: while a request
      // of the session runs here, the TTL is renewed (a third of MCP_SESSION_IDLE_MS apart).
      const id = session.id;
      const entry = held.get(id) ?? { count: 0, timer: undefined as NodeJS.Timeout | undefined };
      entry.count++;
      if (entry.timer === undefined) {
        entry.timer = setInterval(() => void renew(id).catch(() => {}), Math.max(50, Math.floor(idleMs / 3)));
        entry.timer.unref();
      }
      held.set(id, entry);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        entry.count--;
        if (entry.count > 0) return;
        clearInterval(entry.timer);
        held.delete(id);
        void renew(id).catch(() => {});
      };
    },

    delete(id) {
      return guarded(async () => {
        const [deleted] = replyValues(await redis.multi().del(keyOf(id), subsOf(id)).exec()) as [number];
        await redis.zrem(index, id);
        if (deleted > 0) count = Math.max(0, count - 1);
        return deleted > 0;
      });
    },

    /** The count across replicas as of this replica's last create (approximate). */
    size() {
      return count;
    },

    async close() {},
  };
}
