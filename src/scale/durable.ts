/**
 * Writes that must survive a failover. Through Sentinel, Redis replicates asynchronously: a
 * master killed just after it answered a write may take that write with it, and the replica
 * the sentinels promote never had it. For the writes a client is told about and would miss
 * (a new 2025-wire session, a task created or changed), the store asks Redis to wait until a
 * replica has them (`WAIT 1`) before answering; when none confirms in time the write counts as
 * failed (503, retry), as it would with the master away. A master with no replica connected
 * (the one left after a failover, until the old master comes back as its replica) has nobody
 * to wait for: its writes are answered at once, as with one server.
 */
import type { Redis } from 'ioredis';

/** How long a write waits for a replica's confirmation (under the 1 s command timeout). */
export const DURABLE_WAIT_MS = 800;

/** The replicas `ROLE` lists as connected to this master (its third element). */
function replicasOf(role: unknown): number {
  if (!Array.isArray(role) || role[0] !== 'master' || !Array.isArray(role[2])) return 0;
  return role[2].length;
}

/**
 * @example
 * const durable = replicatedWrites(redis);
 * await redis.hset(key, fields);
 * await durable(); // rejects when a replica is connected and none has it within 800 ms
 */
export function replicatedWrites(redis: Redis, waitMs = DURABLE_WAIT_MS): () => Promise<void> {
  return async () => {
    if (replicasOf(await redis.call('ROLE')) === 0) return;
    const confirmed = Number(await redis.call('WAIT', 1, waitMs));
    if (!(confirmed >= 1)) throw new Error(`no replica confirmed the write within ${waitMs} ms`);
  };
}
