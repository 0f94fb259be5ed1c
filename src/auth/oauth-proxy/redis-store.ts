/**
 * The authorisation server's state in Redis (`MCP_REDIS_URL`), so every step of a sign-in
 * (authorize, the upstream callback, consent, the token request, a refresh) can land on a
 * different replica. A record is one JSON string expiring with its TTL; being consumed is a
 * second key beside it, set with NX, so that of two replicas redeeming one code at once exactly
 * one wins; a set per grant lists the records to delete when the grant is revoked. The record
 * and its consumed mark share a hash tag, so the script that touches both runs on a Cluster.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { OAuthStore, StoredPayload } from './store.ts';

// KEYS: the record, its consumed mark. ARGV: the consumption time.
// 1: consumed now; 0: consumed already; -1: the record is gone.
const CONSUME = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return -1 end
local set
if ttl > 0 then set = redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ttl)
else set = redis.call('SET', KEYS[2], ARGV[1], 'NX') end
if set then return 1 end
return 0
`;

// KEYS: the value. ARGV: expected version, new version, value. 1: written; 0: the version moved.
const SWAP = `
local current = redis.call('HGET', KEYS[1], 'version')
if (current or '0') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'value', ARGV[3])
return 1
`;

export interface RedisOAuthStoreOptions {
  readonly redis: Redis;
  /** Default `mcp-toolkit:oauth:`. */
  readonly keyPrefix?: string;
}

/**
 * @example
 * const store = createRedisOAuthStore({ redis });
 */
export function createRedisOAuthStore(options: RedisOAuthStoreOptions): OAuthStore {
  const { redis } = options;
  const prefix = options.keyPrefix ?? 'mcp-toolkit:oauth:';
  const recordKey = (kind: string, id: string) => `${prefix}{${kind}:${id}}`;
  const consumedKey = (kind: string, id: string) => `${recordKey(kind, id)}:consumed`;
  const grantKey = (grantId: string) => `${prefix}grant:{${grantId}}`;
  const uidKey = (kind: string, uid: string) => `${prefix}uid:{${kind}:${uid}}`;

  return {
    async upsert(kind, id, payload, ttlSec) {
      const key = recordKey(kind, id);
      const ttlMs = ttlSec === undefined ? undefined : Math.max(1, Math.round(ttlSec * 1000));
      if (ttlMs === undefined) await redis.set(key, JSON.stringify(payload));
      else await redis.set(key, JSON.stringify(payload), 'PX', ttlMs);
      // The indexes live in their own slots: written after the record, outside its transaction.
      const grantId = payload.grantId;
      if (typeof grantId === 'string') {
        const index = grantKey(grantId);
        await redis.sadd(index, `${kind}\n${id}`);
        // The index outlives its longest record; a grant without TTL keeps it for a year.
        await redis.pexpire(index, Math.max(ttlMs ?? 31_536_000_000, (await redis.pttl(index)) || 0));
      }
      if (typeof payload.uid === 'string') {
        if (ttlMs === undefined) await redis.set(uidKey(kind, payload.uid), id);
        else await redis.set(uidKey(kind, payload.uid), id, 'PX', ttlMs);
      }
    },
    async find(kind, id) {
      const [raw, consumed] = await redis.mget(recordKey(kind, id), consumedKey(kind, id));
      if (raw === null || raw === undefined) return undefined;
      const payload = JSON.parse(raw) as StoredPayload;
      if (typeof consumed === 'string') payload.consumed = Number(consumed);
      return payload;
    },
    async findByUid(kind, uid) {
      const id = await redis.get(uidKey(kind, uid));
      return id === null ? undefined : this.find(kind, id);
    },
    async consume(kind, id, now) {
      const result = await redis.eval(CONSUME, 2, recordKey(kind, id), consumedKey(kind, id), String(now));
      return result === 1;
    },
    async destroy(kind, id) {
      const raw = await redis.get(recordKey(kind, id));
      await redis.del(recordKey(kind, id), consumedKey(kind, id));
      if (raw !== null) {
        const uid = (JSON.parse(raw) as StoredPayload).uid;
        if (typeof uid === 'string') await redis.del(uidKey(kind, uid));
      }
    },
    async revokeByGrantId(kind, grantId) {
      const index = grantKey(grantId);
      const members = await redis.smembers(index);
      const mine = members.filter((m) => m.startsWith(`${kind}\n`));
      for (const member of mine) {
        const id = member.slice(kind.length + 1);
        await redis.del(recordKey(kind, id), consumedKey(kind, id));
      }
      if (mine.length > 0) await redis.srem(index, ...mine);
    },
    async swap(key, expected, version, value) {
      const result = await redis.eval(
        SWAP,
        1,
        `${prefix}value:{${key}}`,
        String(expected),
        String(version),
        value,
      );
      return result === 1;
    },
    async read(key) {
      const fields = await redis.hgetall(`${prefix}value:{${key}}`);
      if (fields.version === undefined || fields.value === undefined) return undefined;
      return { version: Number(fields.version), value: fields.value };
    },
    async lease(key, ttlMs) {
      const token = randomUUID();
      const leaseKey = `${prefix}lease:{${key}}`;
      const set = await redis.set(leaseKey, token, 'PX', ttlMs, 'NX');
      if (set !== 'OK') return undefined;
      return async () => {
        // Only our own lease is released (it may have expired and been taken meanwhile).
        await redis.eval(
          "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
          1,
          leaseKey,
          token,
        );
      };
    },
    async close() {
      // The client belongs to the caller (assemble.ts quits it with the rest).
    },
  };
}
