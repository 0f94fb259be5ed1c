/**
 * The ioredis client behind everything replicas share (`MCP_REDIS_URL`): rate-limit buckets,
 * and the scale-out stores. A rate limit sits on every request, so during a Redis outage a
 * call must learn "store unavailable" at once and let the fail mode decide, never wait in a
 * queue for a reconnect.
 *
 * The URL names one server, a Sentinel set or a Cluster (redis-url.ts). Through Sentinel the
 * client asks the sentinels for the master and follows a failover (it reconnects to the
 * master they promote); on a Cluster it routes each command to the node that holds its key,
 * so a command (or a script, a MULTI) touches keys of one hash slot only.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisConnectionOptions } from './connection.ts';
import { parseRedisUrl, type RedisTarget } from './url.ts';

export interface RedisClientOptions {
  /** Password and TLS trust beyond the URL (redisConnectionOptions(settings)). */
  readonly connection?: RedisConnectionOptions;
  /** Longest wait for one command's reply. Default 1000. */
  readonly commandTimeoutMs?: number;
  /** Longest wait between reconnect attempts (they back off from 100 ms). Default 1000. */
  readonly maxReconnectDelayMs?: number;
}

/**
 * The options every connection to a data node shares, as `base` says, with the URL's
 * credentials and TLS (a Sentinel set's or a Cluster's; one server's come with its URL).
 */
export function nodeOptions(target: RedisTarget, base: RedisOptions): RedisOptions {
  if (target.kind === 'server') return base;
  // As for one server: the URL's credentials win, MCP_REDIS_PASSWORD fills in what it lacks;
  // MCP_REDIS_TLS_CA's trust applies once the URL asks for TLS (rediss+).
  const { tls, ...rest } = base;
  const options: RedisOptions = {
    ...rest,
    username: target.username ?? base.username,
    password: target.password ?? base.password,
  };
  if (target.tls) options.tls = { ...tls };
  return options;
}

/**
 * A client (a `Redis`, or a `Cluster` typed as one: the commands used on it are the same)
 * for `target` with `options` on each of its connections to a data node.
 */
export function clientFor(
  target: RedisTarget,
  options: RedisOptions,
  cluster: { shardedSubscribers?: boolean; maxReconnectDelayMs: number } = { maxReconnectDelayMs: 1000 },
): Redis {
  if (target.kind === 'server') return new Redis(target.url, options);
  if (target.kind === 'sentinel') {
    const client = new Redis({
      ...nodeOptions(target, options),
      sentinels: target.sentinels.map((n) => ({ host: n.host, port: n.port })),
      name: target.masterName,
      db: target.db,
      sentinelUsername: target.sentinelUsername,
      sentinelPassword: target.sentinelPassword,
      enableTLSForSentinelMode: target.tls,
      ...(target.tls ? { sentinelTLS: { ...options.tls } } : {}),
      // Told by the sentinels of a new master at once, instead of when the old one's socket fails.
      failoverDetector: true,
      sentinelRetryStrategy: (attempt) => Math.min(100 * attempt, cluster.maxReconnectDelayMs),
    });
    return reconnectWhenAbandoned(client, cluster.maxReconnectDelayMs);
  }
  const { lazyConnect, enableOfflineQueue, ...perNode } = options;
  return new Cluster(
    target.nodes.map((n) => ({ host: n.host, port: n.port })),
    {
      lazyConnect,
      enableOfflineQueue,
      redisOptions: nodeOptions(target, perNode),
      clusterRetryStrategy: (attempt) => Math.min(100 * attempt, cluster.maxReconnectDelayMs),
      shardedSubscribers: cluster.shardedSubscribers,
    },
  ) as unknown as Redis;
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
  return clientFor(
    parseRedisUrl(url),
    {
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
    },
    { maxReconnectDelayMs: maxDelay },
  );
}

/** Which kind of Redis a `MCP_REDIS_URL` names. */
export function redisKind(url: string): RedisTarget['kind'] {
  return parseRedisUrl(url).kind;
}

/**
 * Connects `client` again when ioredis ends it without being asked to. Through Sentinel, the
 * failover detector of the client's previous connection disconnects the connector when the
 * sentinels announce the new master (`+switch-master`); a reconnect attempt that is asking a
 * sentinel for the master at that moment then fails with "Connection is closed." and ioredis
 * (5.x) sets the client's status to `end`, for good: no retry follows, and the replica would
 * answer 503 and report Redis unreachable until it was restarted. Only `quit()` and
 * `disconnect()` end a client of ours on purpose (the retry strategy never gives up), so any
 * other `end` is this one.
 */
export function reconnectWhenAbandoned(client: Redis, delayMs: number): Redis {
  let closing = false;
  const quit = client.quit.bind(client);
  const disconnect = client.disconnect.bind(client);
  client.quit = ((callback?: Parameters<Redis['quit']>[0]) => {
    closing = true;
    return quit(callback);
  }) as Redis['quit'];
  client.disconnect = (reconnect = false) => {
    if (!reconnect) closing = true;
    disconnect(reconnect);
  };
  client.on('end', () => {
    if (closing) return;
    setTimeout(() => {
      if (!closing && client.status === 'end') client.connect().catch(() => {});
    }, delayMs).unref();
  });
  return client;
}
