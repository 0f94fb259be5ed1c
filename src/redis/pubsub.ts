/**
 * Redis pub/sub between replicas: one subscriber connection per process (a connection in
 * subscribe mode can run no other command), channels subscribed on demand and shared by
 * reference count, and publishing through the ordinary command client. Pub/sub delivers at
 * most once and only to replicas connected at that moment: whatever relies on it either
 * tolerates a loss (and says so) or also polls (the event store's `follow`).
 *
 * On a Redis Cluster it is sharded pub/sub (Redis 7: SSUBSCRIBE, SPUBLISH): a channel lives
 * on the node that holds its name's hash slot, so a stream's wake-ups travel with its key
 * instead of being copied to every node.
 */
import type { Redis } from 'ioredis';
import { clientFor } from './client.ts';
import type { RedisConnectionOptions } from './connection.ts';
import { parseRedisUrl } from './url.ts';

export interface PubSub {
  /** Publishes; rejects while Redis cannot be reached. */
  publish(channel: string, payload: string): Promise<void>;
  /**
   * Subscribes `handler` to `channel`; resolves once Redis confirmed the subscription (it
   * waits while Redis is away). The returned function unsubscribes this handler.
   */
  subscribe(channel: string, handler: (payload: string) => void): Promise<() => void>;
  /** Quits the subscriber connection (the command client belongs to the caller). */
  close(): Promise<void>;
}

/**
 * The subscriber connection: unlike the command client it queues commands while
 * disconnected (a subscription made during an outage takes effect on reconnect) and
 * re-subscribes every channel after a reconnect.
 *
 * @example
 * const subscriber = createSubscriberClient(settings.MCP_REDIS_URL, { connection: redisConnectionOptions(settings) });
 */
export function createSubscriberClient(
  url: string,
  options: { maxReconnectDelayMs?: number; connection?: RedisConnectionOptions } = {},
): Redis {
  const maxDelay = options.maxReconnectDelayMs ?? 1000;
  return clientFor(
    parseRedisUrl(url),
    {
      ...options.connection,
      lazyConnect: true,
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      autoResubscribe: true,
      connectTimeout: 2000,
      retryStrategy: (attempt) => Math.min(100 * attempt, maxDelay),
    },
    { shardedSubscribers: true, maxReconnectDelayMs: maxDelay },
  );
}

/** Whether `client` is a Redis Cluster client (pub/sub is sharded there). */
export function isCluster(client: Redis): boolean {
  return (client as unknown as { isCluster?: boolean }).isCluster === true;
}

/**
 * @param publisher the command client (shared with the rate limiter and the stores)
 * @param subscriber a connection of its own (createSubscriberClient), connected here
 *
 * @example
 * const pubsub = createPubSub(redis, createSubscriberClient(url));
 * const stop = await pubsub.subscribe('mcp-toolkit:bus', (payload) => logger.debug({ payload }, 'bus message'));
 */
export function createPubSub(publisher: Redis, subscriber: Redis): PubSub {
  const handlers = new Map<string, Set<(payload: string) => void>>();
  const sharded = isCluster(subscriber);
  subscriber.on(sharded ? 'smessage' : 'message', (channel: string, payload: string) => {
    for (const handler of handlers.get(channel) ?? []) handler(payload);
  });
  // Reconnects happen in the background; an error event without a listener would crash.
  subscriber.on('error', () => {});
  if (subscriber.status === 'wait') void subscriber.connect().catch(() => {});

  return {
    async publish(channel, payload) {
      if (sharded) await publisher.spublish(channel, payload);
      else await publisher.publish(channel, payload);
    },
    async subscribe(channel, handler) {
      let set = handlers.get(channel);
      const first = set === undefined;
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
      }
      set.add(handler);
      const unsubscribe = () => {
        const current = handlers.get(channel);
        if (!current?.delete(handler) || current.size > 0) return;
        handlers.delete(channel);
        void (sharded ? subscriber.sunsubscribe(channel) : subscriber.unsubscribe(channel)).catch(() => {});
      };
      if (first) {
        try {
          if (sharded) await subscriber.ssubscribe(channel);
          else await subscriber.subscribe(channel);
        } catch (err) {
          unsubscribe();
          throw err;
        }
      }
      return unsubscribe;
    },
    async close() {
      handlers.clear();
      // QUIT would wait in the offline queue for a connection that may never come back.
      if (subscriber.status === 'ready') await subscriber.quit().catch(() => subscriber.disconnect());
      else subscriber.disconnect();
    },
  };
}
