/**
 * One token bucket: its limits, checked once, and the arithmetic every store applies to it.
 * A bucket holds at most `burst` tokens, starts full and refills continuously at `rps`
 * tokens per second; a call of `cost` tokens passes iff that many are there, and then takes
 * them (all or nothing). The memory store runs these functions; the Redis store's Lua script
 * (redis-store.ts) repeats the same formulas, and the contract suite runs both.
 */
import { InternalCode, type InternalCodeValue, ToolkitError } from '../base/errors.ts';

const MIN_RPS = 0.001;
const MAX_RPS = 1_000_000;
const MAX_BURST = 10_000_000;

/**
 * Tokens are doubles: 0.2 added five times is not exactly 1, so an amount within SLACK of
 * another counts as equal (a client paced exactly at `rps` is not refused for a rounding
 * residue, and a wait is not a millisecond too long). A millionth of a token is far below
 * anything a client could exploit; the Lua script uses the same value.
 */
export const SLACK = 1e-6;

/** A limit as written in settings or on a tool definition (`rateLimit: { rps, burst }`). */
export interface RateLimit {
  /** Sustained calls per second: the refill rate. */
  readonly rps: number;
  /** Calls a client may send at once (bucket size); unset or 0 means `defaultBurst(rps)`. */
  readonly burst?: number;
}

/** A checked limit. */
export interface Bucket {
  readonly rps: number;
  /** Bucket size; a cost above it can never pass. */
  readonly burst: number;
  /** Milliseconds an empty bucket takes to fill up again (at least 1). */
  readonly fullMs: number;
}

/** The burst used when none is set: two seconds' worth, at least 1. */
export function defaultBurst(rps: number): number {
  return Math.max(1, Math.ceil(2 * rps));
}

/**
 * Checks a limit; a bad one throws a ToolkitError with `code` (InvalidSetting for settings,
 * InvalidDefinition for a tool's `rateLimit`).
 *
 * @example
 * bucketOf({ rps: 10 }); // { rps: 10, burst: 20, fullMs: 2000 }
 */
export function bucketOf(limit: RateLimit, code: InternalCodeValue = InternalCode.InvalidSetting): Bucket {
  const { rps } = limit;
  if (typeof rps !== 'number' || !Number.isFinite(rps) || rps < MIN_RPS || rps > MAX_RPS) {
    throw new ToolkitError(code, `rate limit rps must be a number from ${MIN_RPS} to ${MAX_RPS}, got ${rps}`);
  }
  const burst = limit.burst === undefined || limit.burst === 0 ? defaultBurst(rps) : limit.burst;
  if (!Number.isInteger(burst) || burst < 1 || burst > MAX_BURST) {
    throw new ToolkitError(code, `rate limit burst must be an integer from 1 to ${MAX_BURST}, got ${burst}`);
  }
  return { rps, burst, fullMs: waitMs(rps, burst) };
}

/**
 * The tokens in a bucket that held `tokens` at `at` ms, at `now` ms: the refill since, up to
 * `burst`. A clock that went back refills nothing (and takes nothing away).
 */
export function refilled(bucket: Bucket, tokens: number, at: number, now: number): number {
  const elapsed = now > at ? now - at : 0;
  return Math.min(bucket.burst, tokens + (elapsed * bucket.rps) / 1000);
}

/** Whether a bucket holding `tokens` can pay `cost`. */
export function fits(tokens: number, cost: number): boolean {
  return tokens >= cost - SLACK;
}

/** The whole tokens left, for `remaining`. */
export function whole(tokens: number): number {
  return Math.max(0, Math.floor(tokens + SLACK));
}

/** Milliseconds until `missing` more tokens have trickled in at `rps`, at least 1. */
export function waitMs(rps: number, missing: number): number {
  return Math.max(1, Math.ceil((missing * 1000) / rps - SLACK));
}
