/**
 * What replicas tell each other about tasks (MCP_REDIS_URL); whether they are alive is
 * src/scale/redis-liveness.ts.
 *
 * The bus is a Redis pub/sub channel (`<prefix>tasks`): a cancellation reaches the replica
 * running the task, a status change reaches the listen streams on every replica. Pub/sub is
 * at most once; nothing depends on it for correctness: the record in the store is the truth,
 * a lost cancellation leaves a handler running until it ends (its result is then not
 * recorded over the `cancelled` status), and a lost status notification is caught up by the
 * client's next `tasks/get`.
 */

import type { PubSub } from '../redis/pubsub.ts';
import type { TaskBus, TaskEvent } from './types.ts';

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
