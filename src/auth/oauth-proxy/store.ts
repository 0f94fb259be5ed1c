/**
 * Where the authorisation server keeps its state: oidc-provider's records (interactions,
 * grants, authorisation codes, refresh tokens, sessions, registered clients), ours beside them
 * (a sign-in waiting for the upstream provider, the user's upstream tokens), and the signing
 * key ring. One port, two stores side by side: in memory (one replica, below) and in Redis
 * (`MCP_REDIS_URL`, redis-store.ts), so any replica serves any step of a sign-in.
 *
 * `consume` is atomic in both: of two redemptions of one code or refresh token racing on two
 * replicas, exactly one wins (RFC 6749 §4.1.2 and RFC 9700 §4.14.2 ask that a second use be
 * refused and the grant revoked).
 */

/** A record as oidc-provider hands it over: a JSON object. */
export type StoredPayload = Record<string, unknown>;

export interface OAuthStore {
  /** Writes a record of `kind` (an oidc-provider model name, or ours); expires after `ttlSec` (none: never). */
  upsert(kind: string, id: string, payload: StoredPayload, ttlSec: number | undefined): Promise<void>;
  /** The record, with `consumed` set once it has been consumed; undefined when absent or expired. */
  find(kind: string, id: string): Promise<StoredPayload | undefined>;
  /** The record of `kind` whose payload has this `uid` (oidc-provider's sessions). */
  findByUid(kind: string, uid: string): Promise<StoredPayload | undefined>;
  /**
   * Marks the record consumed (at `now`, seconds). Resolves false when it was consumed
   * already, or is gone: the caller lost a race for it.
   */
  consume(kind: string, id: string, now: number): Promise<boolean>;
  destroy(kind: string, id: string): Promise<void>;
  /** Deletes every record of `kind` that belongs to the grant. */
  revokeByGrantId(kind: string, grantId: string): Promise<void>;
  /**
   * Compare-and-set of one value (the key ring): writes `value` when the stored version is
   * `expected` (0: absent). Resolves whether it wrote.
   */
  swap(key: string, expected: number, version: number, value: string): Promise<boolean>;
  /** The value `swap` stored, with its version; undefined when absent. */
  read(key: string): Promise<{ version: number; value: string } | undefined>;
  /**
   * A short exclusive lease (one upstream refresh at a time per user, across replicas);
   * resolves a release function, or undefined when someone else holds it.
   */
  lease(key: string, ttlMs: number): Promise<(() => Promise<void>) | undefined>;
  close(): Promise<void>;
}

interface Entry {
  payload: StoredPayload;
  consumed?: number;
  expiresAt: number | undefined;
}

/**
 * The store of one replica, in memory. Expired records are dropped when read and swept
 * every minute.
 *
 * @example
 * const store = createMemoryOAuthStore();
 */
export function createMemoryOAuthStore(options: { now?: () => number } = {}): OAuthStore {
  const now = options.now ?? Date.now;
  const records = new Map<string, Entry>();
  const grants = new Map<string, Set<string>>();
  const uids = new Map<string, string>();
  const values = new Map<string, { version: number; value: string }>();
  const leases = new Map<string, number>();
  const keyOf = (kind: string, id: string) => `${kind}:${id}`;

  const live = (key: string): Entry | undefined => {
    const entry = records.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= now()) {
      records.delete(key);
      return undefined;
    }
    return entry;
  };
  const sweep = setInterval(() => {
    for (const key of records.keys()) live(key);
  }, 60_000);
  sweep.unref();

  return {
    async upsert(kind, id, payload, ttlSec) {
      const key = keyOf(kind, id);
      // A JSON round trip: the caller's object is not ours to keep (oidc-provider reuses it).
      records.set(key, {
        payload: JSON.parse(JSON.stringify(payload)) as StoredPayload,
        expiresAt: ttlSec === undefined ? undefined : now() + ttlSec * 1000,
      });
      const grantId = payload.grantId;
      if (typeof grantId === 'string') {
        const set = grants.get(grantId) ?? new Set<string>();
        set.add(key);
        grants.set(grantId, set);
      }
      if (typeof payload.uid === 'string') uids.set(keyOf(kind, payload.uid), id);
    },
    async find(kind, id) {
      const entry = live(keyOf(kind, id));
      if (entry === undefined) return undefined;
      const copy = JSON.parse(JSON.stringify(entry.payload)) as StoredPayload;
      if (entry.consumed !== undefined) copy.consumed = entry.consumed;
      return copy;
    },
    async findByUid(kind, uid) {
      const id = uids.get(keyOf(kind, uid));
      return id === undefined ? undefined : this.find(kind, id);
    },
    async consume(kind, id, at) {
      const entry = live(keyOf(kind, id));
      if (entry === undefined || entry.consumed !== undefined) return false;
      entry.consumed = at;
      return true;
    },
    async destroy(kind, id) {
      const key = keyOf(kind, id);
      const entry = records.get(key);
      records.delete(key);
      if (entry && typeof entry.payload.uid === 'string') uids.delete(keyOf(kind, entry.payload.uid));
    },
    async revokeByGrantId(kind, grantId) {
      const set = grants.get(grantId);
      if (set === undefined) return;
      for (const key of set) {
        if (key.startsWith(`${kind}:`)) {
          records.delete(key);
          set.delete(key);
        }
      }
      if (set.size === 0) grants.delete(grantId);
    },
    async swap(key, expected, version, value) {
      const current = values.get(key)?.version ?? 0;
      if (current !== expected) return false;
      values.set(key, { version, value });
      return true;
    },
    async read(key) {
      return values.get(key);
    },
    async lease(key, ttlMs) {
      const held = leases.get(key);
      if (held !== undefined && held > now()) return undefined;
      const until = now() + ttlMs;
      leases.set(key, until);
      return async () => {
        if (leases.get(key) === until) leases.delete(key);
      };
    },
    async close() {
      clearInterval(sweep);
    },
  };
}
