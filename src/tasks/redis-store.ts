/**
 * Tasks in Redis, so every replica answers for every task (MCP_REDIS_URL). Keys, all under
 * the scale-out prefix (default `mcp-toolkit:`):
 * - `task:<id>`: a hash { data: the record as JSON, v: its version }, expiring at the task's
 *   TTL from creation (SEP-2663 `ttlMs`); nothing of a task outlives that.
 * - `tasks:<sha256 of owner>`: a sorted set of the owner's task ids by creation time, for the
 *   2025 `tasks/list`; ids whose task expired are dropped as the list is read, and the set
 *   itself expires with the owner's newest task.
 * `update` is optimistic: read the record and its version, compute the next record, write it
 * only if the version is unchanged (one Lua script), else read again. WATCH would not do: the
 * command client is shared by concurrent requests.
 *
 * Every command fails fast while Redis is away; the store then answers with the 503
 * ProtocolError (-32039, Retry-After) requests get from the other shared stores.
 */

import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { type IdPath, parseKeepingIds } from '../base/json-ids.ts';
import { Refusal } from '../base/refusals.ts';
import { replyValues } from '../redis/replies.ts';
import { recorded, type StoreHealth } from '../redis/store-health.ts';
import { cloneRecord, decodeOffset, encodeOffset } from './store-shared.ts';
import type { TaskRecord, TaskStore } from './types.ts';

export interface RedisTaskStoreOptions {
  redis: Redis;
  /** Default `mcp-toolkit:`. */
  keyPrefix?: string;
  health?: StoreHealth;
  now?: () => number;
  /**
   * Called after a task is created or changed, before that is answered; rejects when the
   * write is not safe yet (through Sentinel: no replica has it, src/scale/durable.ts).
   */
  durable?: () => Promise<void>;
}

// Writes the next version only if the stored one is still ARGV[1]. KEYS: task hash.
// ARGV: expected version, data, next version. Returns 1 written, 0 conflict, -1 gone.
const COMPARE_AND_SET = `
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'data', ARGV[2], 'v', ARGV[3])
return 1
`;

// Indexes a new task under its owner; the index lives as long as the owner's longest-lived
// task. One key (a script's keys share a hash slot on a Cluster): the task's own hash is
// written first. KEYS: owner index. ARGV: createdAt, task id, ttl ms.
const INDEX = `
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1
`;

/** Attempts before an update gives up on a task written to that busily. */
const MAX_ATTEMPTS = 16;

/** The ids a task record holds, kept as sent when past Number.MAX_SAFE_INTEGER (json-ids.ts). */
const RECORD_IDS: readonly IdPath[] = [['requestId'], ['meta', 'progressToken']];
const parseRecord = (data: string) => parseKeepingIds(data, RECORD_IDS) as TaskRecord;

/**
 * @example
 * const store = createRedisTaskStore({ redis, keyPrefix: 'mcp-toolkit:' });
 */

export function createRedisTaskStore(options: RedisTaskStoreOptions): TaskStore {
  const { redis, health } = options;
  const now = options.now ?? Date.now;
  const prefix = options.keyPrefix ?? 'mcp-toolkit:';
  const keyOf = (taskId: string) => `${prefix}task:${taskId}`;
  const indexOf = (owner: string) => `${prefix}tasks:${createHash('sha256').update(owner).digest('hex')}`;
  const guarded = <T>(run: () => Promise<T>): Promise<T> =>
    recorded(health, run, () => Refusal.storeUnavailable('the task store'));
  /** Milliseconds the record has left; at least 1 so a write never makes a key immortal. */
  const remaining = (r: TaskRecord) => Math.max(1, r.createdAt + r.ttlMs - now());

  const read = async (taskId: string): Promise<{ record: TaskRecord; version: string } | undefined> => {
    const [data, version] = await redis.hmget(keyOf(taskId), 'data', 'v');
    if (data === null || data === undefined || version === null || version === undefined) return undefined;
    return { record: parseRecord(data), version };
  };

  return {
    create(record) {
      return guarded(async () => {
        const key = keyOf(record.taskId);
        const ttl = remaining(record);
        replyValues(
          await redis.multi().hset(key, 'data', JSON.stringify(record), 'v', '1').pexpire(key, ttl).exec(),
          'task create',
        );
        await redis.eval(INDEX, 1, indexOf(record.owner), record.createdAt, record.taskId, ttl);
        await options.durable?.();
      });
    },

    get(taskId) {
      return guarded(async () => (await read(taskId))?.record);
    },

    update(taskId, change) {
      return guarded(async () => {
        for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
          const current = await read(taskId);
          if (!current) return undefined;
          const next = change(cloneRecord(current.record));
          if (next === undefined) return { record: current.record, changed: false };
          const written = (await redis.eval(
            COMPARE_AND_SET,
            1,
            keyOf(taskId),
            current.version,
            JSON.stringify(next),
            String(Number(current.version) + 1),
          )) as number;
          if (written === 1) {
            await options.durable?.();
            return { record: next, changed: true };
          }
          if (written === -1) return undefined;
        }
        throw new Error(`task ${taskId}: ${MAX_ATTEMPTS} concurrent writers in a row`);
      });
    },

    list(owner, cursor, limit) {
      // A bad cursor is the client's error, not an outage: decoded before any command.
      let start: number;
      try {
        start = decodeOffset(cursor);
      } catch (err) {
        return Promise.reject(err);
      }
      return guarded(async () => {
        const index = indexOf(owner);
        const ids = await redis.zrevrange(index, 0, -1);
        const live: TaskRecord[] = [];
        const gone: string[] = [];
        if (ids.length > 0) {
          // One command per task: on a Cluster each task's key lives in its own slot.
          const datas = await Promise.all(ids.map((id) => redis.hget(keyOf(id), 'data')));
          datas.forEach((data, i) => {
            if (data === null) gone.push(ids[i] as string);
            else live.push(parseRecord(data));
          });
        }
        if (gone.length > 0) await redis.zrem(index, ...gone);
        const end = Math.min(start + limit, live.length);
        const page: { tasks: TaskRecord[]; nextCursor?: string } = { tasks: live.slice(start, end) };
        if (end < live.length) page.nextCursor = encodeOffset(end);
        return page;
      });
    },

    async close() {
      // The command client belongs to the caller.
    },
  };
}
