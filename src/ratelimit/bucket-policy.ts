/**
 * The shape of one rate limit, turned into the two fixed windows rate-limiter-flexible can
 * count. rate-limiter-flexible counts points per fixed window ("enhanced fixed window": the
 * window starts at a key's first request); it has no token bucket. We approximate one the
 * way its `BurstyRateLimiter` does, a steady window plus a burst pool, with our own sizing
 * so that the sustained rate stays close to `rps`:
 *
 * - steady window: `steadyPoints` per `steadySeconds` (for rps >= 1: floor(rps) per second),
 *   so a throttled client gets rps more calls every second ("refill at rps per second");
 * - burst pool: `burst - steadyPoints` extra calls, spent only when the steady window cannot
 *   cover a call, renewed `poolSeconds` after its first use. A client idle for `poolSeconds`
 *   may send `burst` calls at once ("burst = bucket size").
 * - `poolSeconds` is chosen so that the pool adds at most SUSTAINED_SLACK × rps over the long
 *   run: a perfectly paced client gets at most 1.1 × rps, where the naive pairing (pool renewed
 *   every burst/rps seconds) would let it reach 2 × rps.
 *
 * What differs from a true token bucket: the pool comes back all at once after `poolSeconds`
 * (≈10 s at the default burst) instead of trickling back, and around a window edge a client
 * may get up to one extra steady window's worth. Windows are whole seconds because
 * RateLimiterRedis sets key expiry with `EX` seconds.
 */
import { InternalCode, type InternalCodeValue, ToolkitError } from '../protocol/errors.ts';

/** The pool may add at most this fraction of rps to the long-run rate. */
const SUSTAINED_SLACK = 0.1;
const MIN_RPS = 0.001;
const MAX_RPS = 1_000_000;
const MAX_BURST = 10_000_000;

/** A limit as written in settings or on a tool definition (`rateLimit: { rps, burst }`). */
export interface RateLimit {
  /** Sustained calls per second. */
  readonly rps: number;
  /** Calls a client may send at once; unset or 0 means `defaultBurst(rps)`. */
  readonly burst?: number;
}

export interface BucketPolicy {
  readonly rps: number;
  /** Effective bucket size: `steadyPoints + poolPoints`. A cost above it can never pass. */
  readonly burst: number;
  readonly steadyPoints: number;
  readonly steadySeconds: number;
  /** 0 when the burst is no bigger than one steady window. */
  readonly poolPoints: number;
  readonly poolSeconds: number;
}

/** The burst used when none is set: two seconds' worth, at least 1. */
export function defaultBurst(rps: number): number {
  return Math.max(1, Math.ceil(2 * rps));
}

/**
 * Checks a limit and sizes its windows; a bad limit throws a ToolkitError with `code`
 * (InvalidSetting for settings, InvalidDefinition for a tool's `rateLimit`).
 *
 * @example
 * bucketPolicy({ rps: 10 }); // steady 10 per 1 s, pool 10 per 10 s, burst 20
 */
export function bucketPolicy(
  limit: RateLimit,
  code: InternalCodeValue = InternalCode.InvalidSetting,
): BucketPolicy {
  const { rps } = limit;
  if (typeof rps !== 'number' || !Number.isFinite(rps) || rps < MIN_RPS || rps > MAX_RPS) {
    throw new ToolkitError(code, `rate limit rps must be a number from ${MIN_RPS} to ${MAX_RPS}, got ${rps}`);
  }
  const asked = limit.burst === undefined || limit.burst === 0 ? defaultBurst(rps) : limit.burst;
  if (!Number.isInteger(asked) || asked < 1 || asked > MAX_BURST) {
    throw new ToolkitError(code, `rate limit burst must be an integer from 1 to ${MAX_BURST}, got ${asked}`);
  }
  // Below one call per second the steady window grows instead (0.25 rps: 1 call per 4 s).
  const steadySeconds = rps >= 1 ? 1 : Math.ceil(1 / rps);
  const steadyPoints = rps >= 1 ? Math.floor(rps) : 1;
  // A bucket smaller than one steady window cannot be expressed with whole-second windows.
  const burst = Math.max(asked, steadyPoints);
  const poolPoints = burst - steadyPoints;
  const poolSeconds =
    poolPoints === 0 ? 0 : Math.max(steadySeconds, Math.ceil(poolPoints / (SUSTAINED_SLACK * rps)));
  return { rps, burst, steadyPoints, steadySeconds, poolPoints, poolSeconds };
}

/** What the counters said when a call was refused; "free" is before the refused call. */
export interface RefusalSnapshot {
  readonly steadyFree: number;
  readonly steadyResetMs: number;
  readonly poolFree: number;
  readonly poolResetMs: number;
}

/**
 * The earliest wait after which `cost` fits: the first window reset that frees enough
 * points. For `cost > policy.burst` (never fits) it is the time until both windows reset.
 */
export function msUntilAffordable(policy: BucketPolicy, cost: number, s: RefusalSnapshot): number {
  const events = [
    { at: Math.max(0, s.steadyResetMs), steady: true },
    { at: Math.max(0, s.poolResetMs), steady: false },
  ].sort((a, b) => a.at - b.at);
  let steadyFree = s.steadyFree;
  let poolFree = s.poolFree;
  for (const event of events) {
    if (event.steady) steadyFree = policy.steadyPoints;
    else poolFree = policy.poolPoints;
    if (steadyFree + poolFree >= cost) return Math.max(1, Math.ceil(event.at));
  }
  return Math.max(1, Math.ceil(events[1]?.at ?? 0));
}
