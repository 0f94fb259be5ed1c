/**
 * Each 2025-wire session's standalone messages in Redis (the hub's `SessionFeed`), so a GET
 * stream resumed with `Last-Event-ID` on any replica gets every message stored after that id
 * and every later one, whichever replica held the stream before and however it ended (MCP
 * 2025-11-25 "Resumability and Redelivery"). The replica where a message is made writes it
 * (a resource update, a list change, a task's status); the replicas holding the session's GET
 * streams read it. No replica has to be alive for a message to wait for its client.
 *
 * Keys (under the scale-out prefix, default `mcp-toolkit:`):
 * - `feed:{<session id>}`: a Redis stream, one entry per message (`m`: the message), trimmed
 *   to about `retention` entries; an entry `o` marks where it was opened. It expires `ttlMs`
 *   after the last time a GET stream opened or followed it (messages do not keep it alive).
 * - `{feeds}:who` (hash: session id → who opened it, as JSON) and `{feeds}:until` (sorted set:
 *   session id → expiry): the open feeds a list change or resource update is written to.
 *
 * An event id is `<session id>.feed_<entry id>`. Every write publishes a wake-up on the feed's
 * channel (its key); a follower also reads every `pollMs`, for a wake-up lost to a hiccup.
 */
import type { Redis } from 'ioredis';
import { parseMessage } from '../base/json-ids.ts';
import type { JsonRpcMessage } from '../base/jsonrpc.ts';
import { Refusal } from '../base/refusals.ts';
import type { Identity } from '../base/types.ts';
import type { FeedEvent, FeedSession, SessionFeed } from '../protocol/hub/session-streams.ts';
import type { PubSub } from '../redis/pubsub.ts';
import { recorded, type StoreHealth } from '../redis/store-health.ts';

export interface RedisSessionFeedOptions {
  redis: Redis;
  pubsub: PubSub;
  /** MCP_EVENT_RETENTION: entries kept per feed (approximately). */
  retention: number;
  /** How long a feed lives after a GET stream last opened or followed it (MCP_SESSION_IDLE_MS). */
  ttlMs: number;
  /** How often a follower reads even without a wake-up. Default 1000. */
  pollMs?: number;
  /** Default `mcp-toolkit:`. */
  keyPrefix?: string;
  health?: StoreHealth;
  /** Told of a message that could not be stored (Redis away); it is lost. */
  onPushError?: (err: unknown, sessionId: string) => void;
  now?: () => number;
}

const ENTRY_ID = /^\d+-\d+$/;
const SEPARATOR = '.feed_';

// Creates the feed with an open marker when it does not exist, renews its life, and answers
// the id of its latest entry. KEYS: the feed. ARGV: ttl ms, retention.
const OPEN = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'o', '1')
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
return last[1][1]
`;

// Appends a message to a feed that exists (is open); answers 1, or 0 when there is none.
// KEYS: the feed. ARGV: retention, message.
const PUSH = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'm', ARGV[2])
return 1
`;

/**
 * @example
 * const feed = createRedisSessionFeed({ redis, pubsub, retention: 1000, ttlMs: 1_800_000 });
 * const hub = new Hub({ relay, feed });
 */
export function createRedisSessionFeed(options: RedisSessionFeedOptions): SessionFeed {
  if (!(options.retention > 0) || !(options.ttlMs > 0)) {
    throw new RangeError('createRedisSessionFeed: retention and ttlMs must be positive');
  }
  const { redis, pubsub, health, ttlMs } = options;
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? 1000;
  // A follower renews the feed well before it would expire.
  const renewMs = Math.max(1000, Math.floor(ttlMs / 3));
  const prefix = options.keyPrefix ?? 'mcp-toolkit:';
  const keyOf = (sessionId: string) => `${prefix}feed:{${sessionId}}`;
  const who = `${prefix}{feeds}:who`;
  const until = `${prefix}{feeds}:until`;
  const tracked = <T>(run: () => Promise<T>): Promise<T> => recorded(health, run);
  /** For a request's own steps (opening, closing): a failure is the 503 the client sees. */
  const guarded = <T>(run: () => Promise<T>): Promise<T> =>
    recorded(health, run, () => Refusal.storeUnavailable('the session feed'));
  const eventId = (sessionId: string, entryId: string) => `${sessionId}${SEPARATOR}${entryId}`;

  const parse = (id: string): { sessionId: string; entryId: string } | undefined => {
    const cut = id.lastIndexOf(SEPARATOR);
    if (cut <= 0) return undefined;
    const entryId = id.slice(cut + SEPARATOR.length);
    return ENTRY_ID.test(entryId) ? { sessionId: id.slice(0, cut), entryId } : undefined;
  };

  /** Renews the feed's life and its place among the open feeds; answers its latest entry id. */
  const renew = async (sessionId: string, identity: Identity | undefined, withWho: boolean) => {
    const last = (await tracked(() =>
      redis.eval(OPEN, 1, keyOf(sessionId), ttlMs, options.retention),
    )) as string;
    await tracked(() => redis.zadd(until, now() + ttlMs, sessionId));
    if (withWho) await tracked(() => redis.hset(who, sessionId, JSON.stringify(identity ?? null)));
    return last;
  };

  /** Entries after `entryId`: the messages (open markers skipped) and the last entry read. */
  const read = async (sessionId: string, entryId: string) => {
    const entries = await tracked(() => redis.xrange(keyOf(sessionId), `(${entryId}`, '+'));
    const events: FeedEvent[] = [];
    let last = entryId;
    for (const [id, fields] of entries) {
      last = id;
      if (fields[0] !== 'm') continue;
      events.push({ id: eventId(sessionId, id), message: parseMessage(fields[1] ?? '') as JsonRpcMessage });
    }
    return { events, last };
  };

  return {
    push(sessionId, message) {
      let data: string;
      try {
        data = JSON.stringify(message);
      } catch (err) {
        options.onPushError?.(err, sessionId);
        return;
      }
      const key = keyOf(sessionId);
      void tracked(async () => {
        const stored = (await redis.eval(PUSH, 1, key, options.retention, data)) as number;
        if (stored === 1) await pubsub.publish(key, '');
      }).catch((err: unknown) => options.onPushError?.(err, sessionId));
    },

    async sessions() {
      const t = now();
      const [open, stale] = await Promise.all([
        tracked(() => redis.zrangebyscore(until, t, '+inf')),
        tracked(() => redis.zrangebyscore(until, '-inf', `(${t}`)),
      ]);
      if (stale.length > 0) {
        await tracked(() => redis.zrem(until, ...stale));
        await tracked(() => redis.hdel(who, ...stale));
      }
      if (open.length === 0) return [];
      const identities = await tracked(() => redis.hmget(who, ...open));
      const out: FeedSession[] = [];
      open.forEach((sessionId, i) => {
        let identity: Identity | undefined;
        try {
          identity = (JSON.parse(identities[i] ?? 'null') as Identity | null) ?? undefined;
        } catch {
          identity = undefined;
        }
        out.push({ sessionId, identity });
      });
      return out;
    },

    async open(sessionId, identity) {
      return eventId(sessionId, await guarded(() => renew(sessionId, identity, true)));
    },

    sessionOf(id) {
      return parse(id)?.sessionId;
    },

    async follow(id, onEvent, signal) {
      const parsed = parse(id);
      if (!parsed || signal.aborted) return;
      const { sessionId } = parsed;
      const key = keyOf(sessionId);
      let last = parsed.entryId;
      let dirty = true;
      let wake: (() => void) | undefined;
      const poke = () => {
        dirty = true;
        wake?.();
      };
      signal.addEventListener('abort', poke, { once: true });
      // Subscribe before the first read: a message stored after that read then wakes us.
      const subscribed = pubsub.subscribe(key, poke);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        subscribed.catch(() => undefined),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, pollMs);
        }),
      ]);
      clearTimeout(timer);
      let renewed = now();
      try {
        while (!signal.aborted) {
          if (!dirty) {
            await new Promise<void>((resolve) => {
              wake = resolve;
              timer = setTimeout(resolve, pollMs);
            });
            clearTimeout(timer);
            wake = undefined;
            if (signal.aborted) return;
          }
          dirty = false;
          const batch = await read(sessionId, last);
          for (const e of batch.events) onEvent(e);
          last = batch.last;
          if (now() - renewed >= renewMs) {
            // Held open here: the feed lives on (a closed one is not brought back).
            renewed = now();
            if ((await tracked(() => redis.pexpire(key, ttlMs))) === 0) return;
            await tracked(() => redis.zadd(until, 'XX', now() + ttlMs, sessionId));
          }
          // Nothing new and the feed is gone: the session ended (DELETE) or expired.
          if (batch.events.length === 0 && (await tracked(() => redis.exists(key))) === 0) return;
        }
      } finally {
        signal.removeEventListener('abort', poke);
        void subscribed.then((stop) => stop()).catch(() => {});
      }
    },

    async close(sessionId) {
      const key = keyOf(sessionId);
      await guarded(async () => {
        await redis.del(key);
        await redis.zrem(until, sessionId);
        await redis.hdel(who, sessionId);
      });
      await pubsub.publish(key, '').catch(() => {});
    },
  };
}
