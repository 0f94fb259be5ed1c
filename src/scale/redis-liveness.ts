/**
 * Which replicas still run (MCP_REDIS_URL): one lease key per replica,
 * `<prefix>replica:<id>`. With L = MCP_TASK_LEASE_MS:
 *
 * - a replica writes its lease every L/3, and a write that fails is tried again every 250 ms
 *   (at once when Redis reconnects) until one succeeds;
 * - a lease lasts 5L/3 after its last write.
 *
 * So a Redis outage shorter than L never lets a running replica's lease lapse: the last write
 * before it was at most L/3 earlier, and the first after it comes within the reconnect delay
 * (at most about 1 s, so L of 4 s or more), in all less than 5L/3. A replica that stopped
 * (killed, or cut off from Redis for longer) is judged stopped between 4L/3 and 5L/3 after it
 * stopped (its lease lapsed): its `working` tasks are failed, and its dropped reply streams end with an error
 * (src/transports/edge/redis-event-store.ts), for whoever reads them next.
 *
 * A Redis that restarted empty (no persistence) holds no lease at first; no replica is judged
 * stopped until it has held leases for a whole lease's life (`<prefix>replicas-since`, set
 * from Redis's own clock), time enough for every running replica to write its lease again.
 */
import type { Redis } from 'ioredis';
import type { ReplicaLiveness } from '../tasks/types.ts';

export interface LivenessLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** How soon a failed lease write is tried again. */
const RETRY_MS = 250;

/** A lease's life for MCP_TASK_LEASE_MS `leaseMs`: 5/3 of it (see above). */
export function leaseLifeMs(leaseMs: number): number {
  return leaseMs + 2 * Math.floor(leaseMs / 3);
}

/**
 * @example
 * const liveness = createRedisLiveness({ redis, replicaId, leaseMs: settings.MCP_TASK_LEASE_MS, logger });
 * await liveness.ready;
 */
export function createRedisLiveness(options: {
  redis: Redis;
  replicaId: string;
  leaseMs: number;
  keyPrefix?: string;
  logger: LivenessLogger;
}): ReplicaLiveness & { readonly ready: Promise<void> } {
  const { redis, replicaId, leaseMs, logger } = options;
  if (!(leaseMs >= 1000)) throw new RangeError('createRedisLiveness: leaseMs must be at least 1000');
  const prefix = options.keyPrefix ?? 'mcp-toolkit:';
  const keyOf = (id: string) => `${prefix}replica:${id}`;
  const sinceKey = `${prefix}replicas-since`;
  const periodMs = Math.floor(leaseMs / 3);
  const lifeMs = leaseLifeMs(leaseMs);
  let closed = false;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;

  const redisNow = async () => {
    const [seconds, micros] = await redis.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  };

  /** Writes the lease; true when Redis took it. */
  const write = async (): Promise<boolean> => {
    try {
      await redis.set(keyOf(replicaId), '1', 'PX', lifeMs);
      // Only a Redis that has no record yet (a fresh or emptied one) takes this.
      if ((await redis.exists(sinceKey)) === 0) await redis.set(sinceKey, String(await redisNow()), 'NX');
      if (failing) logger.info({ replicaId }, 'tasks: this replica’s lease is renewed again');
      failing = false;
      return true;
    } catch (err) {
      if (!failing) {
        logger.warn(
          { err: (err as Error).message, replicaId },
          `tasks: could not renew this replica’s lease; retrying every ${RETRY_MS} ms`,
        );
      }
      failing = true;
      return false;
    }
  };

  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (closed) return;
    timer = setTimeout(() => void write().then((ok) => schedule(ok ? periodMs : RETRY_MS)), ms);
    timer.unref();
  };
  // Back from an outage (or a restart): the lease is written at once, not at the next tick.
  const onReady = () => {
    if (failing) schedule(0);
  };
  redis.on('ready', onReady);

  // Awaited before serving: a task created here must not look orphaned to another replica.
  const ready = write().then((ok) => schedule(ok ? periodMs : RETRY_MS));

  return {
    self: replicaId,
    ready,
    async isAlive(replica) {
      try {
        if ((await redis.exists(keyOf(replica))) === 1) return true;
        // No lease: stopped, unless this Redis has not held leases for a lease's whole life.
        const now = await redisNow();
        const since = await redis.get(sinceKey);
        if (since === null) {
          await redis.set(sinceKey, String(now), 'NX');
          return true;
        }
        return now - Number(since) < lifeMs;
      } catch {
        // Unknown while Redis is away: never judge a replica stopped on a guess.
        return true;
      }
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      redis.off('ready', onReady);
      await redis.del(keyOf(replicaId)).catch(() => {});
    },
  };
}
