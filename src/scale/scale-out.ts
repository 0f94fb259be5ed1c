/**
 * Everything replicas share, built once from settings when `MCP_REDIS_URL` is set: the
 * 2025-wire session store, the SSE event store, and a hub whose relay reaches the other
 * replicas (Redis pub/sub) and whose sessions' standalone messages go into their feeds. `createServer` takes them in place of the in-memory versions;
 * nothing else changes, so one replica without Redis behaves exactly as before.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ErrorCode } from '../base/errors.ts';
import type { Settings } from '../config/settings.ts';
import { Hub } from '../protocol/hub/hub.ts';
import { createRedisSessionStore } from '../protocol/session/redis-store.ts';
import type { SessionStore } from '../protocol/session/store.ts';
import { redisKind } from '../redis/client.ts';
import type { RedisConnectionOptions } from '../redis/connection.ts';
import { createPubSub, createSubscriberClient } from '../redis/pubsub.ts';
import { createStoreHealth } from '../redis/store-health.ts';
import { createRedisTaskBus } from '../tasks/redis-bus.ts';
import { createRedisTaskStore } from '../tasks/redis-store.ts';
import type { TaskBackend } from '../tasks/types.ts';
import type { EventStore } from '../transports/deps.ts';
import { createRedisEventStore } from '../transports/edge/redis-event-store.ts';
import { replicatedWrites } from './durable.ts';
import { createHubRelay } from './hub-relay.ts';
import { createRedisLiveness } from './redis-liveness.ts';
import { createRedisSessionFeed } from './session-feed.ts';

/** The two levels the scale-out logs at; a pino logger fits. */
/**
 * State shared with other replicas (`MCP_REDIS_URL`) beyond the session store and the hub:
 * the SSE event store, and how reachable the shared store is. The server takes it as is.
 */
export interface SharedState {
  readonly eventStore: EventStore;
  /** For /readyz: `detail` says what is degraded while the shared store is unreachable. */
  health(): { ok: boolean; detail?: string };
}

export interface ScaleOutLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface ScaleOutOptions {
  /** The command client (createRedisClient), shared with the rate limiter; the caller quits it. */
  redis: Redis;
  /** A connection of its own for subscriptions; default: a new one to `settings.MCP_REDIS_URL`. */
  subscriber?: Redis;
  /** Password and TLS trust for that new connection (redisConnectionOptions(settings)). */
  connection?: RedisConnectionOptions;
  settings: Pick<
    Settings,
    'MCP_REDIS_URL' | 'MCP_SESSION_IDLE_MS' | 'MCP_MAX_SESSIONS' | 'MCP_EVENT_RETENTION' | 'MCP_TASK_LEASE_MS'
  >;
  logger: ScaleOutLogger;
  /** Redis key and channel prefix. Default `mcp-toolkit:`. */
  keyPrefix?: string;
  /** How often a cross-replica resumption polls besides its wake-ups. Default 1000. */
  followPollMs?: number;
}

export interface ScaleOut {
  /** Random per process; in server-to-client request ids and relayed messages. */
  readonly replicaId: string;
  readonly sessions: SessionStore;
  readonly hub: Hub;
  /** The event store and health, for `createServer({ shared })`. */
  readonly shared: SharedState;
  /** The task store, bus and replica liveness, for `createServer({ tasks })`. */
  readonly tasks: TaskBackend;
  /** Resolves once this replica hears the others (subscribed); waits while Redis is away. */
  readonly ready: Promise<void>;
  /** Stops listening and quits the subscriber connection (not the command client). */
  close(): Promise<void>;
}

/** What /readyz says while Redis is away: which parts fail, and that the 2026 wire does not. */
const DEGRADED =
  `2025-wire sessions answer 503 (${ErrorCode.ServiceUnavailable}), SSE events are not stored ` +
  'for resumption and replicas cannot reach each other; the 2026 wire is unaffected';

/**
 * @example
 * const scale = createScaleOut({ redis, settings, logger });
 * const server = await createServer({ settings, logger, plugins, sessions: scale.sessions, hub: scale.hub, shared: scale.shared });
 */
export function createScaleOut(options: ScaleOutOptions): ScaleOut {
  const { redis, settings, logger } = options;
  if (!settings.MCP_REDIS_URL && !options.subscriber) {
    throw new RangeError('createScaleOut: MCP_REDIS_URL or a subscriber connection is required');
  }
  const prefix = options.keyPrefix ?? 'mcp-toolkit:';
  const replicaId = randomBytes(6).toString('hex');
  const subscriber =
    options.subscriber ??
    createSubscriberClient(settings.MCP_REDIS_URL as string, { connection: options.connection ?? {} });
  const health = createStoreHealth([redis, subscriber], (problem) => {
    if (problem) logger.warn({ store: 'redis', problem }, `shared state unavailable: ${DEGRADED}`);
    else logger.info({ store: 'redis' }, 'shared state reachable again');
  });
  const pubsub = createPubSub(redis, subscriber);
  const relay = createHubRelay({
    pubsub,
    channel: `${prefix}hub`,
    replicaId,
    onPublished: () => health.succeeded(),
    onPublishError: (err) => health.failed(err),
    logger,
  });
  // A session's standalone messages wait in its feed for whichever replica the client reaches.
  const feed = createRedisSessionFeed({
    redis,
    pubsub,
    retention: settings.MCP_EVENT_RETENTION,
    ttlMs: settings.MCP_SESSION_IDLE_MS,
    pollMs: options.followPollMs,
    keyPrefix: prefix,
    health,
    onPushError: (err, sessionId) =>
      logger.warn(
        { err: err instanceof Error ? err.message : String(err), sessionId },
        'a message for a session’s GET stream could not be stored; it is lost',
      ),
  });
  const hub = new Hub({ relay, requestIdPrefix: `s2c-${replicaId}-`, feed });
  // Through Sentinel a failover must not lose a session or a task a client was told of.
  const durable =
    settings.MCP_REDIS_URL !== undefined && redisKind(settings.MCP_REDIS_URL) === 'sentinel'
      ? replicatedWrites(redis)
      : undefined;
  const sessions = createRedisSessionStore({
    redis,
    idleMs: settings.MCP_SESSION_IDLE_MS,
    maxSessions: settings.MCP_MAX_SESSIONS,
    keyPrefix: prefix,
    health,
    durable,
  });
  const liveness = createRedisLiveness({
    redis,
    replicaId,
    leaseMs: settings.MCP_TASK_LEASE_MS,
    keyPrefix: prefix,
    logger,
  });
  const eventStore = createRedisEventStore({
    redis,
    pubsub,
    retention: settings.MCP_EVENT_RETENTION,
    // A stream belongs to a session: it need not outlive the session's idle time.
    ttlMs: settings.MCP_SESSION_IDLE_MS,
    pollMs: options.followPollMs,
    keyPrefix: prefix,
    health,
    // A reply stream whose replica stopped is ended by its follower, with an answer.
    replicaId,
    isAlive: (replica) => liveness.isAlive(replica),
  });
  const listening = relay.listen(hub);
  const tasks: TaskBackend = {
    store: createRedisTaskStore({ redis, keyPrefix: prefix, health, durable }),
    bus: createRedisTaskBus({ pubsub, channel: `${prefix}tasks`, logger }),
    liveness,
  };
  return {
    replicaId,
    sessions,
    hub,
    shared: {
      eventStore,
      health() {
        const problem = health.problem();
        // Ready all the same: every replica shares this Redis, so taking them all out of
        // rotation would also cut off the 2026 wire, which still works.
        return problem ? { ok: true, detail: `${problem}: ${DEGRADED}` } : { ok: true };
      },
    },
    tasks,
    ready: Promise.all([listening, liveness.ready]).then(() => {}),
    async close() {
      await tasks.bus.close();
      await liveness.close();
      health.stop();
      // Not awaited: while Redis is away the subscription is still queued.
      void listening.then((stop) => stop()).catch(() => {});
      await pubsub.close();
    },
  };
}
