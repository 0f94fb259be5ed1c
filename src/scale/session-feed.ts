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
 *   to about `retention` entries; an entry `o` marks where it was opened, an entry `h` (the
 *   holder's token) where a GET stream claimed it. It expires `ttlMs` after the last time a GET
 *   stream opened or followed it (messages do not keep it alive).
 * - `feed:{<session id>}:holder` (hash: `t` token, `m` the claim's entry id, `u` lease end in
 *   Redis time): which GET stream delivers the feed. A session has one (MCP 2025-11-25
 *   "Multiple Connections": a message goes out on one stream only). A fresh GET is refused
 *   while the lease runs; a resume (an id at or after the claim) takes it over. The lease is
 *   renewed every `leaseMs`/3 while the stream is open and dropped when it closes, so after its
 *   replica died a fresh GET waits at most `leaseMs`. A holder learns it lost the feed from the
 *   newer `h` entry, in order with the messages: it delivers nothing after it.
 * - `{feeds}:who` (hash: session id → who opened it, as JSON) and `{feeds}:until` (sorted set:
 *   session id → expiry): the open feeds a list change or resource update is written to.
 *
 * An event id is `<session id>.feed_<entry id>`. Every write publishes a wake-up on the feed's
 * channel (its key); a follower also reads every `pollMs`, for a wake-up lost to a hiccup.
 */
import { randomBytes } from 'node:crypto';
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
  /**
   * How long a GET stream's hold on its feed lasts unless renewed (every third of it while the
   * stream is open): how long a fresh GET may be refused after the replica holding the
   * session's stream died. Default 10000 (STREAM_LEASE_MS).
   */
  leaseMs?: number;
  /** Told of a message that could not be stored (Redis away); it is lost. */
  onPushError?: (err: unknown, sessionId: string) => void;
  now?: () => number;
}

/** How long a GET stream's hold on its session's feed lasts unless renewed; see leaseMs. */
export const STREAM_LEASE_MS = 10_000;

const ENTRY_ID = /^\d+-\d+$/;

/** Whether stream entry id `a` comes after `b` ('<ms>-<seq>'). */
function newer(a: string, b: string): boolean {
  const [am = '0', as = '0'] = a.split('-');
  const [bm = '0', bs = '0'] = b.split('-');
  const ms = BigInt(am) - BigInt(bm);
  return ms > 0n || (ms === 0n && BigInt(as) > BigInt(bs));
}
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

// Stream ids ('<ms>-<seq>') in order; both parts fit a Lua number exactly.
const OLDER = `
local function older(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  if not am or not bm then return false end
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am < bm or (am == bm and as < bs)
end
`;

// Redis's clock, for the leases: every replica reads the same one.
const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

// Claims the feed for a GET stream; answers {claim entry id, skip-from entry id or ''}, or nil
// (refused). A fresh claim ('f') is refused while another holder's lease runs. A resume ('r')
// from the holder's claim or later (the same client stream, reconnected) takes over; one from
// before it is refused while the lease runs (a stream that holder displaced: taking over in
// turn, two client streams would end each other for ever), except the resume of the stream a
// fresh holder followed (its client reconnected it after opening the fresh one): it takes over,
// skipping what the fresh holder delivered (from its claim on). Records the holder's token,
// claim entry, lease end, kind, and (fresh) the claim of the holder it followed.
// KEYS: the feed, its holder. ARGV: ttl ms, retention, token, lease ms, resumed entry id or ''.
const CLAIM = `${OLDER}${NOW}
local held = redis.call('HMGET', KEYS[2], 't', 'm', 'u', 'k', 'p')
local live = held[1] and tonumber(held[3]) > now
local skip = ''
if ARGV[5] == '' then
  if live then return false end
elseif held[2] and older(ARGV[5], held[2]) then
  if held[4] == 'f' and held[5] and held[5] ~= '' and not older(ARGV[5], held[5]) then
    skip = held[2]
  elseif live then
    return false
  end
end
local m = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'h', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
local kind = ARGV[5] == '' and 'f' or 'r'
redis.call('HSET', KEYS[2], 't', ARGV[3], 'm', m, 'u', now + tonumber(ARGV[4]), 'k', kind, 'p', held[2] or '')
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return {m, skip}
`;

// Renews the holder's lease (1), or answers 0 when another stream claimed the feed since.
// KEYS: the holder. ARGV: token, lease ms (0: let go), ttl ms.
const LEASE = `${NOW}
if redis.call('HGET', KEYS[1], 't') ~= ARGV[1] then return 0 end
local lease = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'u', lease > 0 and now + lease or 0)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
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
  const leaseMs = options.leaseMs ?? STREAM_LEASE_MS;
  if (!(options.retention > 0) || !(options.ttlMs > 0) || !(leaseMs >= 300)) {
    throw new RangeError(
      'createRedisSessionFeed: retention and ttlMs must be positive, leaseMs at least 300',
    );
  }
  const { redis, pubsub, health, ttlMs } = options;
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? 1000;
  // A follower renews the feed well before it would expire.
  const renewMs = Math.max(1000, Math.floor(ttlMs / 3));
  const prefix = options.keyPrefix ?? 'mcp-toolkit:';
  const keyOf = (sessionId: string) => `${prefix}feed:{${sessionId}}`;
  const holderOf = (sessionId: string) => `${prefix}feed:{${sessionId}}:holder`;
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

  /**
   * Entries after `entryId`: the messages (markers skipped) and the last entry read. With
   * `held` (a holder's token and claim entry), reading stops at a later claim by another
   * stream (`lost`): what comes after it is that stream's to deliver.
   */
  const read = async (
    sessionId: string,
    entryId: string,
    held?: { token: string; entry: string; skipFrom?: string },
  ) => {
    const entries = await tracked(() => redis.xrange(keyOf(sessionId), `(${entryId}`, '+'));
    const events: FeedEvent[] = [];
    let last = entryId;
    for (const [id, fields] of entries) {
      if (fields[0] === 'h' && held && fields[1] !== held.token && newer(id, held.entry)) {
        return { events, last, lost: true };
      }
      last = id;
      // The follower's own claim, read by a resume after its replay: a position event (no
      // message), so the client's next resume comes from the claim or later.
      if (fields[0] === 'h' && held && fields[1] === held.token) {
        events.push({ id: eventId(sessionId, id), message: undefined });
        continue;
      }
      if (fields[0] !== 'm') continue;
      // Delivered by the fresh stream this one took over from (its claim to ours).
      if (held?.skipFrom !== undefined && !newer(held.skipFrom, id) && newer(held.entry, id)) continue;
      events.push({ id: eventId(sessionId, id), message: parseMessage(fields[1] ?? '') as JsonRpcMessage });
    }
    return { events, last, lost: false };
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

    async claim(sessionId, identity, resumeFrom) {
      const resumed = resumeFrom === undefined ? undefined : parse(resumeFrom);
      const from = resumed?.sessionId === sessionId ? resumed.entryId : '';
      const token = randomBytes(12).toString('base64url');
      const key = keyOf(sessionId);
      const answer = (await guarded(() =>
        redis.eval(CLAIM, 2, key, holderOf(sessionId), ttlMs, options.retention, token, leaseMs, from),
      )) as [string, string] | null;
      if (answer === null) return undefined;
      const [entry, skip] = answer;
      await guarded(() => renew(sessionId, identity, true));
      // The previous holder, wherever it is, reads the claim now rather than at its next poll.
      await pubsub.publish(key, '').catch(() => {});
      const mark = eventId(sessionId, entry);
      return skip === '' ? { token, mark } : { token, mark, skipFrom: eventId(sessionId, skip) };
    },

    sessionOf(id) {
      return parse(id)?.sessionId;
    },

    async follow(id, onEvent, signal, claim) {
      const parsed = parse(id);
      if (!parsed) return;
      const { sessionId } = parsed;
      const key = keyOf(sessionId);
      const claimed = claim && parse(claim.mark);
      const held =
        claim && claimed?.sessionId === sessionId
          ? { token: claim.token, entry: claimed.entryId, skipFrom: parse(claim.skipFrom ?? '')?.entryId }
          : undefined;
      let lost = false;
      let leased = now();
      // A holder that closes lets go at once: a fresh GET is welcome from then on.
      const letGo = () => {
        if (!held || lost) return;
        void tracked(() => redis.eval(LEASE, 1, holderOf(sessionId), held.token, 0, ttlMs)).catch(() => {});
      };
      if (signal.aborted) return letGo();
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
          const batch = await read(sessionId, last, held);
          for (const e of batch.events) onEvent(e);
          last = batch.last;
          if (batch.lost) {
            lost = true;
            return;
          }
          if (held && now() - leased >= leaseMs / 3) {
            leased = now();
            const kept = await tracked(() =>
              redis.eval(LEASE, 1, holderOf(sessionId), held.token, leaseMs, ttlMs),
            );
            // Claimed by another stream since (its claim is read next): nothing more from here.
            if (kept === 0) {
              lost = true;
              return;
            }
          }
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
        letGo();
      }
    },

    async close(sessionId) {
      const key = keyOf(sessionId);
      await guarded(async () => {
        await redis.del(key, holderOf(sessionId));
        await redis.zrem(until, sessionId);
        await redis.hdel(who, sessionId);
      });
      await pubsub.publish(key, '').catch(() => {});
    },
  };
}
