/**
 * What a bucket answers, in a file of its own: the limiter hands it out and both stores
 * (memory-store.ts, redis-store.ts) produce it, so it sits below all three.
 */

/**
 * The answer to one consume. `limited` maps to HTTP 429 with `Retry-After`
 * (ceil(retryAfterMs / 1000) seconds); `unavailable` (fail mode `closed`, store down) to 503.
 * `degraded` marks a call let through while the store was down (fail mode `open`).
 */
export type RateDecision =
  | { readonly allowed: true; readonly remaining: number; readonly degraded?: true }
  | { readonly allowed: false; readonly reason: 'limited'; readonly retryAfterMs: number }
  | { readonly allowed: false; readonly reason: 'unavailable' };
