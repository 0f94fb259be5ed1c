/**
 * Authentication with its failures counted against the rate limit per client address: an
 * address that keeps sending bad or no credentials (guessing API keys, replaying expired
 * tokens, making an OAuth server's keys be fetched and checked) is refused with 429 and
 * `Retry-After` once its failures have emptied its bucket (`RateLimiter.authFailures`, sized
 * as the per-client limit), before its credentials are checked again; other addresses and
 * callers that authenticate are not touched. The MCP endpoint (pipeline.ts) and the plugins'
 * routes (route-call.ts) both authenticate through here. Only a 401 counts: a 403 is a
 * caller who authenticated, and a 503 (the issuer unreachable) is not the caller's doing.
 */
import type { ProtocolError } from '../../base/errors.ts';
import type { Headers, Identity } from '../../base/types.ts';
import { rateLimitError } from '../../ratelimit/errors.ts';
import { clientKey, type RateDecision } from '../../ratelimit/limiter.ts';
import type { EdgeDeps } from '../deps.ts';
import { authRefusal } from './rules.ts';

/** The caller, or why not. */
export type CountedAuth =
  | { readonly identity: Identity; readonly refusal?: undefined }
  | { readonly identity?: undefined; readonly refusal: ProtocolError };

const WHAT = 'failed authentications from this address';

function tooMany(decision: Exclude<RateDecision, { allowed: true }>): ProtocolError {
  return rateLimitError(decision, WHAT);
}

/**
 * The caller at once, without a promise, when `authenticateCounted` could only answer with it:
 * the authenticator knows these credentials already (`Authenticator.known`: an API key matched
 * before) and no failure of this address is counted (`authFailures.quiet`). Undefined: ask
 * `authenticateCounted`.
 */
export function knownCaller(
  deps: Pick<EdgeDeps, 'auth' | 'limiter'>,
  headers: Headers,
  address: string | undefined,
): Identity | undefined {
  const identity = deps.auth?.known?.({ headers });
  if (identity === undefined) return undefined;
  const limiter = deps.limiter;
  if (limiter === undefined || limiter.burst === 0) return identity;
  return limiter.authFailures.quiet(clientKey(undefined, address)) ? identity : undefined;
}

/**
 * @example
 * const outcome = await authenticateCounted(deps, req.headers, req.ip);
 * if (outcome.refusal) return refuse(outcome.refusal);
 */
export async function authenticateCounted(
  deps: Pick<EdgeDeps, 'auth' | 'limiter' | 'logger'>,
  headers: Headers,
  address: string | undefined,
): Promise<CountedAuth> {
  const auth = deps.auth as NonNullable<EdgeDeps['auth']>;
  const failures =
    deps.limiter !== undefined && deps.limiter.burst > 0 ? deps.limiter.authFailures : undefined;
  const key = clientKey(undefined, address);
  if (failures !== undefined) {
    const before = await failures.check(key);
    if (!before.allowed) return { refusal: tooMany(before) };
  }
  try {
    return { identity: await auth.authenticate({ headers }) };
  } catch (err) {
    const refusal = authRefusal(err, deps.logger);
    if (failures === undefined || refusal.httpStatus !== 401) return { refusal };
    const counted = await failures.count(key);
    return { refusal: counted.allowed ? refusal : tooMany(counted) };
  }
}
