/**
 * The ioredis client behind shared rate-limit buckets (`MCP_REDIS_URL`). A rate limit sits
 * on every request, so during a Redis outage a call must learn "store unavailable" at once
 * and let the fail mode decide, never wait in a queue for a reconnect.
 */
import { Redis } from 'ioredis';
import type { RedisConnectionOptions } from './redis-connection.ts';

export interface RedisClientOptions {
  /** Password and TLS trust beyond the URL (redisConnectionOptions(settings)). */
  readonly connection?: RedisConnectionOptions;
  /** Longest wait for one command's reply. Default 1000. */
  readonly commandTimeoutMs?: number;
  /** Longest wait between reconnect attempts (they back off from 100 ms). Default 1000. */
  readonly maxReconnectDelayMs?: number;
}

/**
 * A client that fails fast while disconnected and reconnects forever in the background.
 * It does not connect until `connect()` (start-up decides whether to wait for Redis).
 * The caller owns it: `quit()` it at shutdown, after `RateLimiter.close()`.
 *
 * @example
 * const redis = createRedisClient(settings.MCP_REDIS_URL, { connection: redisConnectionOptions(settings) });
 * const failure = await connectRedis(redis); // throws for a refused password or certificate
 * if (failure) logger.warn({ err: failure.message }, 'Redis not reachable yet');
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  const maxDelay = options.maxReconnectDelayMs ?? 1000;
  return new Redis(url, {
    // The URL's own password and rediss:// win over these (ioredis fills in what is unset);
    // requireReplicaSettings refuses a password given twice.
    ...options.connection,
    lazyConnect: true,
    // Commands issued while disconnected fail at once instead of queueing.
    enableOfflineQueue: false,
    // A command in flight when the connection drops fails instead of being retried.
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(100 * attempt, maxDelay),
  });
}
