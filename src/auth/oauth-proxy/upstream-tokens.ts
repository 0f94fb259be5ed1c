/**
 * The signed-in user's upstream tokens, kept server-side under our grant (sealed in the
 * store), for tools that act as the user (`ctx.upstreamToken()`). An access token about to
 * expire is refreshed with the upstream refresh token first; one refresh at a time per grant,
 * across replicas (a lease in the store), so a provider that rotates refresh tokens and
 * detects reuse never sees the same one twice. When the provider refuses the refresh, the
 * upstream session is over: our grant goes with it, so the MCP client is sent to sign in again.
 * Tokens never appear in a log line or an error message.
 */
import { InternalCode, ToolkitError } from '../../base/errors.ts';
import { revokeGrant, UPSTREAM_TOKENS } from './adapter.ts';
import type { Secrets } from './secrets.ts';
import type { OAuthStore } from './store.ts';
import { type Upstream, UpstreamError, type UpstreamTokenSet } from './upstream.ts';

/** Refresh this long before the provider's expiry, so a token handed to a tool still works when used. */
const EXPIRY_MARGIN_MS = 30_000;
/** How long one replica may hold the refresh lease. */
const LEASE_MS = 15_000;

/** A tool asked for an upstream token that cannot be had. */
export class UpstreamTokenError extends ToolkitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(InternalCode.UpstreamAuth, message, options);
    this.name = 'UpstreamTokenError';
  }
}

export interface UpstreamTokensOptions {
  store: OAuthStore;
  secrets: Secrets;
  upstream: Upstream;
  /** How long a stored set lives (our refresh tokens' lifetime: the grant cannot outlive it). */
  ttlSec: number;
  now?: () => number;
  /** Polling step while another replica refreshes. Default 50 ms. */
  waitStepMs?: number;
}

export interface UpstreamTokens {
  /** Keeps a grant's upstream tokens (at sign-in). */
  save(grantId: string, tokens: UpstreamTokenSet): Promise<void>;
  /** Whether the grant still has its upstream tokens (the upstream session is not over). */
  has(grantId: string): Promise<boolean>;
  /**
   * The grant's upstream access token, refreshed first when it has expired (or `forceRefresh`:
   * the API said 401). Throws UpstreamTokenError when there is none to give.
   */
  accessToken(grantId: string, options?: { forceRefresh?: boolean }): Promise<string>;
}

/**
 * @example
 * const tokens = createUpstreamTokens({ store, secrets, upstream, ttlSec: 1_209_600 });
 * const token = await tokens.accessToken(grantId);
 */
export function createUpstreamTokens(options: UpstreamTokensOptions): UpstreamTokens {
  const { store, secrets, upstream } = options;
  const now = options.now ?? Date.now;
  const waitStepMs = options.waitStepMs ?? 50;
  // Refreshes under way here, so concurrent calls on one replica share one.
  const refreshing = new Map<string, Promise<UpstreamTokenSet>>();

  async function read(grantId: string): Promise<UpstreamTokenSet | undefined> {
    const record = await store.find(UPSTREAM_TOKENS, grantId);
    if (typeof record?.sealed !== 'string') return undefined;
    const plain = secrets.open(record.sealed);
    return plain === undefined ? undefined : (JSON.parse(plain) as UpstreamTokenSet);
  }

  async function write(grantId: string, tokens: UpstreamTokenSet): Promise<void> {
    await store.upsert(
      UPSTREAM_TOKENS,
      grantId,
      { sealed: secrets.seal(JSON.stringify(tokens)) },
      options.ttlSec,
    );
  }

  const fresh = (tokens: UpstreamTokenSet) =>
    tokens.expiresAt === undefined || tokens.expiresAt - EXPIRY_MARGIN_MS > now();

  async function ended(grantId: string, why: string, cause?: unknown): Promise<never> {
    await revokeGrant(store, grantId);
    throw new UpstreamTokenError(
      `The sign-in at ${upstream.host} has ended (${why}): sign in to this server again.`,
      { cause },
    );
  }

  async function refreshOnce(grantId: string, stale: UpstreamTokenSet): Promise<UpstreamTokenSet> {
    const deadline = now() + LEASE_MS * 2;
    for (;;) {
      const release = await store.lease(`upstream-refresh:${grantId}`, LEASE_MS);
      if (release !== undefined) {
        try {
          // Another replica may have refreshed while we waited for the lease.
          const current = await read(grantId);
          if (current === undefined) return await ended(grantId, 'revoked');
          if (current.accessToken !== stale.accessToken) return current;
          if (current.refreshToken === undefined)
            return await ended(grantId, 'the token expired and cannot be refreshed');
          let next: UpstreamTokenSet;
          try {
            next = await upstream.refresh(current.refreshToken);
          } catch (err) {
            if (err instanceof UpstreamError && err.error === 'invalid_grant') {
              return await ended(grantId, 'the provider refused the refresh', err);
            }
            throw new UpstreamTokenError(
              `${upstream.host} could not refresh the token: ${err instanceof Error ? err.message : String(err)}`,
              { cause: err },
            );
          }
          await write(grantId, next);
          return next;
        } finally {
          await release();
        }
      }
      // Someone else holds the lease: wait for their result.
      await new Promise((r) => setTimeout(r, waitStepMs));
      const current = await read(grantId);
      if (current === undefined) return ended(grantId, 'revoked');
      if (current.accessToken !== stale.accessToken) return current;
      if (now() > deadline)
        throw new UpstreamTokenError(`${upstream.host}: the token refresh did not finish in time; try again`);
    }
  }

  return {
    save: write,
    async has(grantId) {
      return (await read(grantId)) !== undefined;
    },
    async accessToken(grantId, opts = {}) {
      const tokens = await read(grantId);
      if (tokens === undefined) {
        throw new UpstreamTokenError(
          `No sign-in at ${upstream.host} belongs to this token: sign in to this server again.`,
        );
      }
      if (!opts.forceRefresh && fresh(tokens)) return tokens.accessToken;
      let pending = refreshing.get(grantId);
      if (pending === undefined) {
        pending = refreshOnce(grantId, tokens).finally(() => refreshing.delete(grantId));
        refreshing.set(grantId, pending);
      }
      return (await pending).accessToken;
    },
  };
}
