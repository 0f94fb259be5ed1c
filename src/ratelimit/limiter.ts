/**
 * Per-client (and optional per-tool) rate limits: an exact token bucket per client, in
 * process memory (memory-store.ts) or in Redis shared by every replica (redis-store.ts).
 * A bucket holds `burst` tokens, starts full and refills continuously at `rps` per second
 * (bucket.ts). A batch costs one token per request in it, taken all or nothing. When Redis
 * cannot be reached, `failMode` decides: `open` lets calls through and reports the
 * degradation, `closed` refuses them.
 */
import type { Redis } from 'ioredis';
import { InternalCode, ToolkitError } from '../base/errors.ts';
import { explainRedisError } from '../redis/connection.ts';
import { type Bucket, bucketOf, type RateLimit } from './bucket.ts';
import type { RateDecision } from './decision.ts';
import { createMemoryBuckets, type MemoryBuckets } from './memory-store.ts';
import { createRedisBuckets, DEFAULT_KEY_PREFIX } from './redis-store.ts';

export type { RateDecision } from './decision.ts';

/** Where buckets live: this process, or a Redis every replica talks to. */
export type RateLimitStore = 'memory' | { readonly redis: Redis };

export interface RateLimitHealth {
  /** False only when calls are being refused because the store is down (fail mode `closed`). */
  readonly ok: boolean;
  /** What is wrong, for `/readyz` and `doctor`; absent when all is well. */
  readonly degraded?: string;
}

/** The two levels the limiter logs at; a pino logger fits. */
export interface RateLimitLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface RateLimiterOptions {
  /**
   * Per-client sustained calls per second (the bucket's refill rate, 0.001 to 1,000,000); 0
   * turns the per-client limit off (tool limits still apply).
   */
  readonly rps: number;
  /** Per-client bucket size, the calls a client may send at once; unset or 0: twice `rps`, at least 1. */
  readonly burst?: number;
  readonly store: RateLimitStore;
  /** What to do when Redis is unreachable. Default `open`. */
  readonly failMode?: 'open' | 'closed';
  readonly logger: RateLimitLogger;
  /** Redis key prefix. Default `mcp-toolkit:rl`. */
  readonly keyPrefix?: string;
  /** Longest a consume may wait for Redis before the fail mode applies. Default 500. */
  readonly timeoutMs?: number;
}

export interface RateLimiter {
  /** The per-client bucket size (a batch bigger than this can never pass); 0 when off. */
  readonly burst: number;
  /**
   * Takes `cost` (default 1; for a batch, the number of requests in it) from `key`'s bucket,
   * all or nothing: a refused call takes nothing. Allowed: `remaining` whole tokens are left.
   * Refused: `retryAfterMs` is the wait until `cost` tokens are there (a cost above `burst`
   * never passes; it is told the time of a full refill). Cost 0 is allowed without touching
   * the store. When the per-client limit is off (`burst === 0`) it allows everything without
   * touching the store.
   */
  consume(key: string, cost?: number): Promise<RateDecision>;
  /**
   * `consume`'s decision at once, without a promise, when no store has to be asked (the
   * buckets are in this process, or the per-client limit is off); undefined: ask `consume`
   * (Redis). The HTTP edge asks this first on every request.
   */
  consumeNow(key: string, cost?: number): RateDecision | undefined;
  /**
   * Failed authentications, in a bucket per client address (`clientKey(undefined, address)`)
   * of its own, sized as the per-client limit: `count` takes one token for a failure,
   * `check` tells whether one more would pass without taking it (the edge asks before it
   * checks credentials, so that an address past its failures cannot go on guessing). Both
   * allow everything when the per-client limit is off.
   */
  readonly authFailures: {
    check(key: string): Promise<RateDecision>;
    /** True when `check(key)` would allow without asking any store: no failure of `key` counted here lately. */
    quiet(key: string): boolean;
    count(key: string): Promise<RateDecision>;
  };
  /** Same, for a tool's own `rateLimit`, in a bucket per tool and client. */
  consumeTool(toolName: string, key: string, limit: RateLimit): Promise<RateDecision>;
  health(): RateLimitHealth;
  /** Stops listening to the Redis client (which the caller owns and quits). */
  close(): Promise<void>;
}

const UNLIMITED: RateDecision = Object.freeze({ allowed: true, remaining: Number.MAX_SAFE_INTEGER } as const);
const ALLOWED_UNLIMITED: Promise<RateDecision> = Promise.resolve(UNLIMITED);
const FREE: RateDecision = Object.freeze({ allowed: true, remaining: 0 } as const);
const LET_THROUGH: RateDecision = Object.freeze({ allowed: true, remaining: 0, degraded: true } as const);
const UNAVAILABLE: RateDecision = Object.freeze({ allowed: false, reason: 'unavailable' } as const);

/** One kind of bucket: the per-client limit (scope `client`) or one tool's (`tool:<name>`). */
interface Scope {
  /** The limit `bucket` was checked from (a tool's `rateLimit` object). */
  limit: RateLimit;
  bucket: Bucket;
  readonly name: string;
  /** Its buckets when they live in this process, made on first use. */
  memory: MemoryBuckets | undefined;
}

/**
 * The rate-limit key of a caller: its authenticated identity (API-key id or token subject)
 * when there is one, else its address (the HTTP layer resolves X-Forwarded-For through
 * Fastify's `trustProxy`; stdio has no address and shares `ip:unknown`).
 *
 * @example
 * clientKey({ clientId: 'key-1' }, '10.0.0.7'); // 'id:key-1'
 * clientKey(undefined, '10.0.0.7');             // 'ip:10.0.0.7'
 */
export function clientKey(identity?: { readonly clientId: string } | null, address?: string): string {
  const clientId = identity?.clientId;
  if (clientId) {
    // The same string for the same client on every request: no concatenation, and a bucket
    // lookup that finds its hash computed already.
    let key = CLIENT_KEYS.get(clientId);
    if (key === undefined) {
      key = `id:${clientId}`;
      if (CLIENT_KEYS.size < MAX_CLIENT_KEYS) CLIENT_KEYS.set(clientId, key);
    }
    return key;
  }
  return `ip:${address || 'unknown'}`;
}

/** Client keys kept by client id; past the bound (many OAuth clients) a key is built per request. */
const CLIENT_KEYS = new Map<string, string>();
const MAX_CLIENT_KEYS = 10_000;

/**
 * Creates the limiter; bad options throw here (ToolkitError InvalidSetting), not on the
 * first request.
 *
 * @example
 * const limiter = createRateLimiter({ rps: 10, store: 'memory', logger });
 * const decision = await limiter.consume(clientKey(identity, request.ip), batch.length);
 * if (!decision.allowed && decision.reason === 'limited') reply.header('Retry-After', Math.ceil(decision.retryAfterMs / 1000));
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { store, logger } = options;
  const failMode = options.failMode ?? 'open';
  if (failMode !== 'open' && failMode !== 'closed') {
    throw new ToolkitError(
      InternalCode.InvalidSetting,
      `rate limit fail mode must be open or closed, got ${failMode}`,
    );
  }
  const timeoutMs = options.timeoutMs ?? 500;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw new ToolkitError(InternalCode.InvalidSetting, `rate limit timeoutMs must be a positive integer`);
  }
  const redis = store === 'memory' ? undefined : store.redis;
  const shared = redis && createRedisBuckets(redis, options.keyPrefix ?? DEFAULT_KEY_PREFIX);
  const clientScope: Scope | undefined =
    options.rps === 0
      ? undefined
      : { limit: options, bucket: bucketOf(options), name: 'client', memory: undefined };
  const authFailureScope: Scope | undefined = clientScope && {
    limit: options,
    bucket: clientScope.bucket,
    name: 'auth-failure',
    memory: undefined,
  };
  const toolScopes = new Map<string, Scope>();
  const recentFailures = createRecentKeys();

  let outage: string | undefined;
  const markDown = (reason: string) => {
    if (outage === undefined) {
      logger.warn(
        { store: 'redis', failMode, reason },
        failMode === 'open'
          ? 'rate-limit store unreachable: letting calls through unlimited until it is back'
          : 'rate-limit store unreachable: refusing calls (503) until it is back',
      );
    }
    outage = reason;
  };
  const markUp = () => {
    if (outage === undefined) return;
    outage = undefined;
    logger.info({ store: 'redis' }, 'rate-limit store reachable again');
  };
  // A refused password or certificate is said with the setting to fix (redis-connection.ts).
  // An error on a connection that is still ready is no outage by itself: a broken connection
  // closes next, and a command that fails is counted where it fails (decide). Marking it down
  // here would latch: with no command to succeed (no client limit), only a new 'ready' clears it.
  let lastError: string | undefined;
  const onError = (error: Error) => {
    lastError = explainRedisError(error).message;
    if (redis?.status !== 'ready') markDown(lastError);
  };
  // A close follows the error that caused it: keep that error's reason (a refused password).
  const onClose = () => markDown(outage ?? lastError ?? 'connection closed');
  const onReady = () => {
    lastError = undefined;
    markUp();
  };
  redis?.on('ready', onReady);
  redis?.on('error', onError);
  redis?.on('close', onClose);

  /** The decision when no store has to be asked (buckets in memory, a cost that decides alone); else undefined. */
  function decideNow(scope: Scope, key: string, cost: number, peek: boolean): RateDecision | undefined {
    // A caller bug (a batch has a whole number of requests), not a client's fault.
    if (!Number.isInteger(cost) || cost < 0)
      throw new RangeError(`rate limit cost must be a whole number, got ${cost}`);
    if (cost === 0) return FREE;
    const { bucket } = scope;
    // Never fits however long the client waits; a full refill is the best advice there is.
    if (cost > bucket.burst) return { allowed: false, reason: 'limited', retryAfterMs: bucket.fullMs };
    if (shared !== undefined) return undefined;
    scope.memory ??= createMemoryBuckets();
    // Date.now(), not performance.now(): the clock tests freeze with node:test's mock timers.
    return (peek ? scope.memory.peek : scope.memory.take)(bucket, key, cost, Date.now());
  }

  async function decide(scope: Scope, key: string, cost: number, peek = false): Promise<RateDecision> {
    const now = decideNow(scope, key, cost, peek);
    if (now !== undefined || shared === undefined) return now as RateDecision;
    let decision: RateDecision;
    try {
      decision = await withTimeout(
        (peek ? shared.peek : shared.take)(scope.bucket, scope.name, key, cost),
        timeoutMs,
      );
    } catch (error) {
      markDown(error instanceof Error ? error.message : String(error));
      return failMode === 'open' ? LET_THROUGH : UNAVAILABLE;
    }
    markUp();
    return decision;
  }

  return {
    burst: clientScope?.bucket.burst ?? 0,
    // Not async: the HTTP edge awaits this on every request, and decide's promise will do.
    consume(key, cost = 1) {
      return clientScope === undefined ? ALLOWED_UNLIMITED : decide(clientScope, key, cost);
    },
    consumeNow(key, cost = 1) {
      return clientScope === undefined ? UNLIMITED : decideNow(clientScope, key, cost, false);
    },
    authFailures: {
      check(key) {
        // An address this process has counted no failure of within a full refill: nothing to
        // ask the store (no Redis round trip on the way of every authenticated request).
        if (authFailureScope === undefined || !recentFailures.has(key, Date.now())) return ALLOWED_UNLIMITED;
        return decide(authFailureScope, key, 1, true);
      },
      quiet(key) {
        return authFailureScope === undefined || !recentFailures.has(key, Date.now());
      },
      count(key) {
        if (authFailureScope === undefined) return ALLOWED_UNLIMITED;
        recentFailures.add(key, Date.now() + authFailureScope.bucket.fullMs);
        return decide(authFailureScope, key, 1);
      },
    },
    async consumeTool(toolName, key, limit) {
      let scope = toolScopes.get(toolName);
      if (scope === undefined) {
        const bucket = bucketOf(limit, InternalCode.InvalidDefinition);
        scope = { limit, bucket, name: `tool:${toolName}`, memory: undefined };
        toolScopes.set(toolName, scope);
      } else if (scope.limit !== limit) {
        // Usually the same object (the tool's definition) on every call; when it is not, check
        // it again: a tool registered anew with another limit keeps its buckets, resized.
        scope.bucket = bucketOf(limit, InternalCode.InvalidDefinition);
        scope.limit = limit;
      }
      return decide(scope, key, 1);
    },
    health() {
      if (redis === undefined) return { ok: true };
      const problem = outage ?? (redis.status === 'ready' ? undefined : `connection ${redis.status}`);
      if (problem === undefined) return { ok: true };
      return failMode === 'open'
        ? { ok: true, degraded: `rate-limit store (Redis) unreachable, limits not enforced: ${problem}` }
        : { ok: false, degraded: `rate-limit store (Redis) unreachable, refusing calls: ${problem}` };
    },
    async close() {
      redis?.off('ready', onReady);
      redis?.off('error', onError);
      redis?.off('close', onClose);
    },
  };
}

/** Keys each with a time it is remembered until, bounded by dropping the expired ones as it grows. */
function createRecentKeys(): {
  add(key: string, until: number): void;
  has(key: string, now: number): boolean;
} {
  const until = new Map<string, number>();
  let keptAtSweep = 0;
  return {
    add(key, at) {
      if (!until.has(key) && until.size >= Math.max(1000, 2 * keptAtSweep)) {
        const now = Date.now();
        for (const [k, end] of until) if (end <= now) until.delete(k);
        keptAtSweep = until.size;
      }
      until.set(key, at);
    },
    has(key, now) {
      if (until.size === 0) return false;
      const end = until.get(key);
      return end !== undefined && end > now;
    },
  };
}

/** Bounds a store call: a hung Redis must not hold the request (the fail mode applies instead). */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`rate-limit store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
