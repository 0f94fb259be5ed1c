/**
 * What replicas tell each other about tasks, and whether they are alive (MCP_REDIS_URL).
 *
 * The bus is a Redis pub/sub channel (`<prefix>tasks`): a cancellation reaches the replica
 * running the task, a status change reaches the listen streams on every replica. Pub/sub is
 * at most once; nothing depends on it for correctness: the record in the store is the truth,
 * a lost cancellation leaves a handler running until it ends (its result is then not
 * recorded over the `cancelled` status), and a lost status notification is caught up by the
 * client's next `tasks/get`.
 *
 * Liveness is one key per replica (`<prefix>replica:<id>`), renewed every third of the lease
 * (MCP_TASK_LEASE_MS). A task still `working` on a replica whose key has expired will never
 * finish, and is marked `failed` by the first replica that reads it.
 */
import type { Redis } from 'ioredis';
import type { ReplicaLiveness, TaskBus, TaskEvent } from '../tasks/types.ts';
import type { PubSub } from './pubsub.ts';

export interface BusLogger {
  warn(obj: object, msg: string): void;
}

/**
 * @example
 * const bus = createRedisTaskBus({ pubsub, channel: 'mcp-toolkit:tasks', logger });
 */
export function createRedisTaskBus(options: { pubsub: PubSub; channel: string; logger: BusLogger }): TaskBus {
  const { pubsub, channel, logger } = options;
  const handlers = new Set<(event: TaskEvent) => void>();
  const subscribed = pubsub
    .subscribe(channel, (payload) => {
      let event: TaskEvent;
      try {
        event = JSON.parse(payload) as TaskEvent;
      } catch {
        return;
      }
      for (const handler of handlers) handler(event);
    })
    .catch((err: unknown) => {
      logger.warn({ err: (err as Error).message }, 'tasks: could not subscribe to the task channel');
      return () => {};
    });
  return {
    publish(event) {
      pubsub.publish(channel, JSON.stringify(event)).catch((err: unknown) => {
        logger.warn(
          { err: (err as Error).message, event: event.type },
          'tasks: event not relayed to the other replicas',
        );
      });
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    async close() {
      handlers.clear();
      void subscribed.then((stop) => stop());
    },
  };
}

/**
 * @example
 * const liveness = createRedisLiveness({ redis, replicaId, leaseMs: settings.MCP_TASK_LEASE_MS });
 */
export function createRedisLiveness(options: {
  redis: Redis;
  replicaId: string;
  leaseMs: number;
  keyPrefix?: string;
  logger: BusLogger;
}): ReplicaLiveness & { readonly ready: Promise<void> } {
  const { redis, replicaId, leaseMs, logger } = options;
  if (!(leaseMs >= 1000)) throw new RangeError('createRedisLiveness: leaseMs must be at least 1000');
  const prefix = options.keyPrefix ?? 'mcp-toolkit:';
  const keyOf = (id: string) => `${prefix}replica:${id}`;
  const renew = () =>
    redis.set(keyOf(replicaId), '1', 'PX', leaseMs).catch((err: unknown) => {
      logger.warn({ err: (err as Error).message }, 'tasks: could not renew this replica’s lease');
    });
  // Awaited before serving: a task created here must not look orphaned to another replica.
  const ready = renew().then(() => {});
  const timer = setInterval(renew, Math.floor(leaseMs / 3));
  timer.unref();
  return {
    self: replicaId,
    ready,
    async isAlive(replica) {
      try {
        return (await redis.exists(keyOf(replica))) === 1;
      } catch {
        // Unknown while Redis is away: never fail a task on a guess.
        return true;
      }
    },
    async close() {
      clearInterval(timer);
      await redis.del(keyOf(replicaId)).catch(() => {});
    },
  };
}
