/**
 * Token buckets in process memory, for a single replica. This runs on every HTTP request,
 * so a take is a Map lookup and a few float operations on an entry updated in place: no
 * promise, no timer, no allocation for a client already seen.
 *
 * Memory stays bounded without a timer: an entry whose bucket has filled up again says
 * nothing a missing entry does not (a new bucket starts full), so a sweep drops those. It
 * runs on an insert, when SWEEP_INTERVAL_MS has passed since the last one or when the map
 * has grown by as many entries as it kept then (at least SWEEP_MIN_INSERTS): the cost of a
 * sweep is paid for by the inserts before it, and nothing keeps the process alive.
 */
import { type Bucket, fits, refilled, waitMs, whole } from './bucket.ts';
import type { RateDecision } from './decision.ts';

const SWEEP_INTERVAL_MS = 10_000;
const SWEEP_MIN_INSERTS = 1000;

interface Entry {
  tokens: number;
  /** Date.now() when `tokens` was last computed. */
  at: number;
}

/** The buckets of one scope (the per-client limit, or one tool's). */
export interface MemoryBuckets {
  /** Takes `cost` (1 to `bucket.burst`) from `key`'s bucket at `now` (ms), all or nothing. */
  take(bucket: Bucket, key: string, cost: number, now: number): RateDecision;
  /** Whether `cost` would be taken from `key`'s bucket at `now`, taking nothing. */
  peek(bucket: Bucket, key: string, cost: number, now: number): RateDecision;
  /** Entries held (buckets not known to be full). */
  readonly size: number;
}

/**
 * @example
 * const buckets = createMemoryBuckets();
 * buckets.take(bucketOf({ rps: 10 }), 'id:alice', 1, Date.now()); // { allowed: true, remaining: 19 }
 */
export function createMemoryBuckets(): MemoryBuckets {
  const entries = new Map<string, Entry>();
  let sweptAt = Number.NEGATIVE_INFINITY;
  let keptAtSweep = 0;
  let inserts = 0;

  function sweep(bucket: Bucket, now: number): void {
    // Deleting the entry being visited is safe in a Map iteration.
    for (const [key, entry] of entries) {
      if (refilled(bucket, entry.tokens, entry.at, now) >= bucket.burst) entries.delete(key);
    }
    sweptAt = now;
    keptAtSweep = entries.size;
    inserts = 0;
  }

  return {
    take(bucket, key, cost, now) {
      let entry = entries.get(key);
      if (entry === undefined) {
        inserts += 1;
        if (now - sweptAt >= SWEEP_INTERVAL_MS || inserts >= Math.max(SWEEP_MIN_INSERTS, keptAtSweep)) {
          sweep(bucket, now);
        }
        entry = { tokens: bucket.burst, at: now };
        entries.set(key, entry);
      }
      const tokens = refilled(bucket, entry.tokens, entry.at, now);
      if (!fits(tokens, cost)) {
        // All or nothing: a refused call leaves the entry as it was.
        return { allowed: false, reason: 'limited', retryAfterMs: waitMs(bucket.rps, cost - tokens) };
      }
      entry.tokens = tokens - cost;
      entry.at = now;
      return { allowed: true, remaining: whole(entry.tokens) };
    },
    peek(bucket, key, cost, now) {
      const entry = entries.get(key);
      const tokens = entry === undefined ? bucket.burst : refilled(bucket, entry.tokens, entry.at, now);
      if (!fits(tokens, cost)) {
        return { allowed: false, reason: 'limited', retryAfterMs: waitMs(bucket.rps, cost - tokens) };
      }
      return { allowed: true, remaining: whole(tokens - cost) };
    },
    get size() {
      return entries.size;
    },
  };
}
