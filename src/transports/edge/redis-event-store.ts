/**
 * The SSE event store in Redis Streams, so a client reconnecting with `Last-Event-ID` to any
 * replica gets the rest of its stream (MCP 2025-11-25, "Resumability and Redelivery").
 * One Redis stream per SSE stream, trimmed to about `retention` entries (`MAXLEN ~`) and
 * expiring `ttlMs` after its last event; an event id is `<streamId>_<entry id>`. Releasing a
 * finished stream appends an end marker and shortens its life to `graceMs`.
 *
 * A stream runs on one replica; a reconnect that lands on another `follow`s it: the stored
 * rest, then each later event as it is stored, in order and exactly once (each read starts
 * after the last entry passed on), until the end marker. Every append publishes a wake-up on
 * the stream's channel; a poll every `pollMs` covers a wake-up lost to a Redis hiccup.
 *
 * Each entry names the replica writing the stream (`r`), the request it answers (`q`, the id
 * as JSON) and its place in the stream (`n`): an append tried again after a timeout (Redis
 * may have taken the first one) is kept once. A follower that finds nothing new asks whether that replica is still alive
 * (its lease, src/scale/redis-liveness.ts); once it is not, the stream can never end by
 * itself, so the follower ends it: a JSON-RPC error for the request (-32044, lost, may be
 * retried) unless the request's answer is stored already, then the end marker, both written
 * once for every follower (one script).
 */
import type { Redis } from 'ioredis';
import { ErrorCode } from '../../base/errors.ts';
import { parseMessage } from '../../base/json-ids.ts';
import { classify, type JsonRpcMessage } from '../../base/jsonrpc.ts';
import type { PubSub } from '../../redis/pubsub.ts';
import { replyValues } from '../../redis/replies.ts';
import { recorded, type StoreHealth } from '../../redis/store-health.ts';
import type { EventStore, StoredEvent } from '../deps.ts';

export interface RedisEventStoreOptions {
  redis: Redis;
  pubsub: PubSub;
  /** MCP_EVENT_RETENTION: events kept per stream (approximately). */
  retention: number;
  /** How long a stream outlives its last event (a replica that died never releases it). */
  ttlMs: number;
  /** How long a finished stream stays for late reconnects. Default 60000. */
  graceMs?: number;
  /** How often a follower reads even without a wake-up. Default 1000. */
  pollMs?: number;
  /** Default `mcp-toolkit:`. */
  keyPrefix?: string;
  health?: StoreHealth;
  /** This replica's id, written with each event (the replica writing the stream). */
  replicaId?: string;
  /** Whether a replica still runs (its lease); absent: a follower never ends a stream itself. */
  isAlive?: (replicaId: string) => Promise<boolean>;
}

/** What a follower of a dropped reply stream sends when the replica running its request stopped. */
export const LOST_MESSAGE =
  'The request was lost: the server replica running it stopped before it finished. ' +
  'It may be sent again (retry only a request that is safe to repeat)';

// Appends an event, once: when the stream's last entry is this event already (its place `n`
// is ARGV[3]: an earlier append whose reply was lost to a timeout), answers that entry's id.
// KEYS: the stream. ARGV: retention, ttl ms, place (or ''), then the entry's fields.
const APPEND = `
if ARGV[3] ~= '' then
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  if #last > 0 then
    local f = last[1][2]
    for i = 1, #f - 1, 2 do
      if f[i] == 'n' and f[i + 1] == ARGV[3] then return last[1][1] end
    end
  end
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', unpack(ARGV, 4))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return id
`;

// Ends a stream whose writer stopped, once: unless its last entry is the end marker, appends
// the lost error (when ARGV[1] is not empty), then the end marker. KEYS: the stream.
// ARGV: the error message (or ''), grace ms. Returns 1 when it ended the stream here.
const END_LOST = `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last == 0 or last[1][2][1] == 'end' then return 0 end
if ARGV[1] ~= '' then redis.call('XADD', KEYS[1], '*', 'm', ARGV[1]) end
redis.call('XADD', KEYS[1], '*', 'end', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

/** An entry's fields, by name. */
function fieldsOf(fields: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) out.set(fields[i] as string, fields[i + 1] as string);
  return out;
}

/** Whether a stored message is the answer to the request whose id is `request` (as JSON). */
function answers(message: JsonRpcMessage | undefined, request: string | undefined): boolean {
  if (message === undefined || request === undefined) return false;
  const c = classify(message);
  return c.kind === 'response' && JSON.stringify(c.message.id) === request;
}

const ENTRY_ID = /^\d+-\d+$/;

/** `<streamId>_<entry id>` split; undefined for an id this store did not issue. */
function parse(eventId: string): { streamId: string; entryId: string } | undefined {
  const cut = eventId.lastIndexOf('_');
  if (cut <= 0) return undefined;
  const entryId = eventId.slice(cut + 1);
  return ENTRY_ID.test(entryId) ? { streamId: eventId.slice(0, cut), entryId } : undefined;
}

/**
 * @example
 * const events = createRedisEventStore({ redis, pubsub, retention: 1000, ttlMs: 1_800_000 });
 */
export function createRedisEventStore(options: RedisEventStoreOptions): EventStore {
  if (!(options.retention > 0) || !(options.ttlMs > 0)) {
    throw new RangeError('createRedisEventStore: retention and ttlMs must be positive');
  }
  const { redis, pubsub, health } = options;
  const graceMs = options.graceMs ?? 60_000;
  const pollMs = options.pollMs ?? 1000;
  const prefix = options.keyPrefix ?? 'mcp-toolkit:';
  const keyOf = (streamId: string) => `${prefix}events:${streamId}`;

  const tracked = <T>(run: () => Promise<T>): Promise<T> => recorded(health, run);

  /** What a follower learns of the stream: who writes it, which request it answers, whether it holds the answer. */
  interface Writer {
    replica?: string;
    request?: string;
    answered: boolean;
  }

  /** An entry as an event; notes its writer in `writer`. */
  const eventOf = (streamId: string, id: string, raw: readonly string[], writer: Writer): StoredEvent => {
    const fields = fieldsOf(raw);
    const data = fields.get('m') ?? '';
    const message = data === '' ? undefined : (parseMessage(data) as JsonRpcMessage);
    writer.replica = fields.get('r') ?? writer.replica;
    writer.request = fields.get('q') ?? writer.request;
    if (answers(message, writer.request)) writer.answered = true;
    return { id: `${streamId}_${id}`, message };
  };

  /** Entries after `entryId`: the events, and whether the end marker was among them. */
  const read = async (streamId: string, entryId: string, writer: Writer = { answered: false }) => {
    const entries = await tracked(() => redis.xrange(keyOf(streamId), `(${entryId}`, '+'));
    const events: StoredEvent[] = [];
    let last = entryId;
    for (const [id, fields] of entries) {
      if (fields[0] === 'end') return { events, last, ended: true };
      events.push(eventOf(streamId, id, fields, writer));
      last = id;
    }
    return { events, last, ended: false };
  };

  /**
   * Ends a stream whose writer has stopped: its request's lost error (unless the answer is
   * stored), then the end marker; nothing when another follower did it first.
   */
  const endLost = async (streamId: string, writer: Writer) => {
    const request = writer.request;
    const error = `{"jsonrpc":"2.0","id":${request ?? 'null'},"error":${JSON.stringify({ code: ErrorCode.RequestLost, message: LOST_MESSAGE })}}`;
    const key = keyOf(streamId);
    const ended = await tracked(() => redis.eval(END_LOST, 1, key, writer.answered ? '' : error, graceMs));
    if (ended === 1) await pubsub.publish(key, '').catch(() => {});
  };

  /** Whether the replica writing the stream has stopped (its lease lapsed); learns who it is first. */
  const writerStopped = async (streamId: string, last: string, writer: Writer) => {
    const isAlive = options.isAlive;
    if (!isAlive) return false;
    if (writer.replica === undefined) {
      // Resumed after everything stored so far: the entry the client saw last names the writer.
      const [entry] = await tracked(() => redis.xrevrange(keyOf(streamId), last, last));
      if (entry) eventOf(streamId, entry[0], entry[1], writer);
    }
    const replica = writer.replica;
    if (replica === undefined || replica === options.replicaId) return false;
    return !(await isAlive(replica));
  };

  return {
    append(streamId, message, meta = {}) {
      return tracked(async () => {
        const key = keyOf(streamId);
        const fields = ['m', message === undefined ? '' : JSON.stringify(message)];
        if (options.replicaId !== undefined) fields.push('r', options.replicaId);
        if (meta.answers !== undefined) fields.push('q', JSON.stringify(meta.answers));
        if (meta.seq !== undefined) fields.push('n', String(meta.seq));
        const id = (await redis.eval(
          APPEND,
          1,
          key,
          options.retention,
          options.ttlMs,
          meta.seq ?? '',
          ...fields,
        )) as string;
        // The wake-up goes after the entry on the same connection; a lost one is covered by the poll.
        void pubsub.publish(key, '').catch(() => {});
        return `${streamId}_${id}`;
      });
    },

    async streamOf(eventId) {
      const parsed = parse(eventId);
      if (!parsed) return undefined;
      const exists = await tracked(() => redis.exists(keyOf(parsed.streamId)));
      return exists > 0 ? parsed.streamId : undefined;
    },

    async after(eventId) {
      const parsed = parse(eventId);
      if (!parsed) return [];
      return (await read(parsed.streamId, parsed.entryId)).events;
    },

    release(streamId) {
      return tracked(async () => {
        const key = keyOf(streamId);
        replyValues(await redis.multi().xadd(key, '*', 'end', '1').pexpire(key, graceMs).exec(), 'release');
        void pubsub.publish(key, '').catch(() => {});
      });
    },

    async follow(eventId, onEvent, signal) {
      const parsed = parse(eventId);
      if (!parsed || signal.aborted) return;
      const { streamId } = parsed;
      let last = parsed.entryId;
      const writer: Writer = { answered: false };
      let dirty = true;
      let wake: (() => void) | undefined;
      const poke = () => {
        dirty = true;
        wake?.();
      };
      signal.addEventListener('abort', poke, { once: true });
      // Subscribe before the first read: an event stored after that read then wakes us.
      const subscribed = pubsub.subscribe(keyOf(streamId), poke);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        subscribed.catch(() => undefined),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, pollMs);
        }),
      ]);
      clearTimeout(timer);
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
          const batch = await read(streamId, last, writer);
          for (const e of batch.events) onEvent(e);
          last = batch.last;
          if (batch.ended) return;
          if (batch.events.length > 0) continue;
          // Nothing new and the stream is gone (expired): stop following.
          if ((await tracked(() => redis.exists(keyOf(streamId)))) === 0) return;
          if (await writerStopped(streamId, last, writer)) {
            await endLost(streamId, writer);
            dirty = true;
          }
        }
      } finally {
        signal.removeEventListener('abort', poke);
        void subscribed.then((stop) => stop()).catch(() => {});
      }
    },
  };
}
