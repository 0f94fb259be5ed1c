/**
 * Takes `cost` points from a steady window and a burst pool (see bucket-policy.ts), all or
 * nothing. rate-limiter-flexible's `consume(key, points)` is atomic per counter but, when it
 * refuses, the points stay added to the counter; a refused batch would then drain the
 * bucket it was refused from. So every refused consume is given back with `reward`, and a
 * call never waits on a counter it did not win. Between a consume and its give-back another
 * request may see the counter too high and be refused (never let through): the error is on
 * the safe side and lasts one round trip.
 */
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { type BucketPolicy, msUntilAffordable } from './bucket-policy.ts';

/** The two counters of one policy, over one store. `pool` is absent when the policy has none. */
export interface Counters {
  readonly steady: RateLimiterAbstract;
  readonly pool: RateLimiterAbstract | undefined;
}

export type TakeOutcome = { readonly ok: true; readonly remaining: number } | TakeRefusal;
export interface TakeRefusal {
  readonly ok: false;
  readonly retryAfterMs: number;
}

/**
 * A give-back that lands after its window expired would open a new window at `-points`,
 * i.e. hand out extra points. Close to the window's end we leave the surplus in place
 * instead: it vanishes with the window within this many milliseconds anyway.
 */
const GIVE_BACK_GUARD_MS = 100;

/**
 * Takes `cost` points for `key`: from the steady window first, the rest from the pool.
 * Store errors (anything but a refusal) are thrown for the caller's fail mode; the points
 * already taken by this call are given back on a best-effort basis first.
 *
 * `remaining` is a lower bound: the points certainly still available now (the fast path
 * reads only the steady window).
 */
export async function takeTokens(
  policy: BucketPolicy,
  counters: Counters,
  key: string,
  cost: number,
): Promise<TakeOutcome> {
  if (cost > policy.burst) {
    // Never fits; retrying after a full refill is the best advice we can give.
    return { ok: false, retryAfterMs: Math.max(policy.steadySeconds, policy.poolSeconds) * 1000 };
  }
  const steady = await attempt(counters.steady, key, cost);
  if (steady.won) return { ok: true, remaining: steady.res.remainingPoints };

  // The refused consume added `cost`; what the window could still cover before it:
  const steadyFree = clamp(policy.steadyPoints - (steady.res.consumedPoints - cost), 0, cost);
  const fromPool = cost - steadyFree;
  if (counters.pool === undefined) {
    await giveBack(counters.steady, key, cost, steady.res);
    return refusal(policy, cost, {
      steadyFree,
      steadyResetMs: steady.res.msBeforeNext,
      poolFree: 0,
      poolResetMs: 0,
    });
  }

  let pool: Attempt;
  try {
    pool = await attempt(counters.pool, key, fromPool);
  } catch (error) {
    await giveBack(counters.steady, key, cost, steady.res).catch(() => undefined);
    throw error;
  }
  if (pool.won) {
    // Keep the part of `cost` the steady window could cover; the pool took the rest.
    await giveBack(counters.steady, key, fromPool, steady.res);
    return { ok: true, remaining: pool.res.remainingPoints };
  }
  await Promise.all([
    giveBack(counters.steady, key, cost, steady.res),
    giveBack(counters.pool, key, fromPool, pool.res),
  ]);
  return refusal(policy, cost, {
    steadyFree,
    steadyResetMs: steady.res.msBeforeNext,
    poolFree: clamp(policy.poolPoints - (pool.res.consumedPoints - fromPool), 0, policy.poolPoints),
    poolResetMs: pool.res.msBeforeNext,
  });
}

type Attempt = { won: boolean; res: RateLimiterRes };

/** One consume: a refusal (a RateLimiterRes rejection) is an answer, anything else a store error. */
async function attempt(limiter: RateLimiterAbstract, key: string, points: number): Promise<Attempt> {
  try {
    return { won: true, res: await limiter.consume(key, points) };
  } catch (error) {
    if (error instanceof RateLimiterRes) return { won: false, res: error };
    throw error;
  }
}

async function giveBack(limiter: RateLimiterAbstract, key: string, points: number, res: RateLimiterRes) {
  if (points <= 0 || res.msBeforeNext <= GIVE_BACK_GUARD_MS) return;
  await limiter.reward(key, points);
}

function refusal(
  policy: BucketPolicy,
  cost: number,
  snapshot: Parameters<typeof msUntilAffordable>[2],
): TakeRefusal {
  return { ok: false, retryAfterMs: msUntilAffordable(policy, cost, snapshot) };
}

function clamp(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, n));
}
