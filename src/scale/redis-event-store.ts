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
 */
import type { Redis } from 'ioredis';
import { parseMessage } from '../base/json-ids.ts';
import type { JsonRpcMessage } from '../base/jsonrpc.ts';
import type { EventStore, StoredEvent } from '../transports/deps.ts';
import type { PubSub } from './pubsub.ts';
import { replyValues } from './replies.ts';
import { recorded, type StoreHealth } from './store-health.ts';

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

  /** Entries after `entryId`: the events, and whether the end marker was among them. */
  const read = async (streamId: string, entryId: string) => {
    const entries = await tracked(() => redis.xrange(keyOf(streamId), `(${entryId}`, '+'));
    const events: StoredEvent[] = [];
    let last = entryId;
    for (const [id, fields] of entries) {
      if (fields[0] === 'end') return { events, last, ended: true };
      const data = fields[1] ?? '';
      events.push({
        id: `${streamId}_${id}`,
        message: data === '' ? undefined : (parseMessage(data) as JsonRpcMessage),
      });
      last = id;
    }
    return { events, last, ended: false };
  };

  return {
    append(streamId, message) {
      return tracked(async () => {
        const key = keyOf(streamId);
        const [id] = replyValues(
          await redis
            .pipeline()
            .xadd(
              key,
              'MAXLEN',
              '~',
              options.retention,
              '*',
              'm',
              message === undefined ? '' : JSON.stringify(message),
            )
            .pexpire(key, options.ttlMs)
            .publish(key, '')
            .exec(),
        ) as [string];
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
        replyValues(
          await redis.pipeline().xadd(key, '*', 'end', '1').pexpire(key, graceMs).publish(key, '').exec(),
        );
      });
    },

    async follow(eventId, onEvent, signal) {
      const parsed = parse(eventId);
      if (!parsed || signal.aborted) return;
      const { streamId } = parsed;
      let last = parsed.entryId;
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
          const batch = await read(streamId, last);
          for (const e of batch.events) onEvent(e);
          last = batch.last;
          if (batch.ended) return;
          // Nothing new and the stream is gone (expired: its replica died): stop following.
          if (batch.events.length === 0 && (await tracked(() => redis.exists(keyOf(streamId)))) === 0) return;
        }
      } finally {
        signal.removeEventListener('abort', poke);
        void subscribed.then((stop) => stop()).catch(() => {});
      }
    },
  };
}
