/**
 * Redis pub/sub between replicas: one subscriber connection per process (a connection in
 * subscribe mode can run no other command), channels subscribed on demand and shared by
 * reference count, and publishing through the ordinary command client. Pub/sub delivers at
 * most once and only to replicas connected at that moment: whatever relies on it either
 * tolerates a loss (and says so) or also polls (the event store's `follow`).
 */
import { Redis } from 'ioredis';
import type { RedisConnectionOptions } from '../ratelimit/redis-connection.ts';

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
  return new Redis(url, {
    ...options.connection,
    lazyConnect: true,
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    autoResubscribe: true,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(100 * attempt, maxDelay),
  });
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
  subscriber.on('message', (channel: string, payload: string) => {
    for (const handler of handlers.get(channel) ?? []) handler(payload);
  });
  // Reconnects happen in the background; an error event without a listener would crash.
  subscriber.on('error', () => {});
  if (subscriber.status === 'wait') void subscriber.connect().catch(() => {});

  return {
    async publish(channel, payload) {
      await publisher.publish(channel, payload);
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
        void subscriber.unsubscribe(channel).catch(() => {});
      };
      if (first) {
        try {
          await subscriber.subscribe(channel);
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
