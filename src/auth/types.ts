/**
 * The contract every auth mode implements, so the HTTP edge (and a future verifier) stays
 * ignorant of how a caller is recognised. One shared test suite runs against each.
 */
import type { Identity } from '../base/types.ts';

export type { Identity };

/** What an authenticator looks at: the request headers, as Node delivers them (lower-case names). */
export interface AuthRequest {
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

export interface Authenticator {
  /** `api_key` or `oauth`: for logs, doctor and readiness reports. */
  readonly kind: 'api_key' | 'oauth';
  /**
   * Recognises the caller. Throws AuthError (401/403, with a `WWW-Authenticate` challenge)
   * when the request is refused, and a ProtocolError with `httpStatus` 503 when the
   * authenticator itself cannot work (authorisation server unreachable).
   */
  authenticate(req: AuthRequest): Promise<Identity>;
  /**
   * The caller at once, without a promise, when these credentials were accepted before (an API
   * key already matched): what `authenticate` would resolve to. Undefined: ask `authenticate`.
   * Optional; the HTTP edge asks it first on every request.
   */
  known?(req: AuthRequest): Identity | undefined;
  /**
   * Throws AuthError 403 `insufficient_scope` when `identity` lacks any of `needed`
   * (a tool's `scopes`). A key from `MCP_API_KEYS` carries no scopes and is allowed all.
   */
  checkScopes(identity: Identity, needed: readonly string[]): void;
  /**
   * Whether `identity` holds every scope in `needed`, by the same rule as `checkScopes`, without
   * building an error: visibility asks this for every listed or named item, and a hidden item
   * must cost what an absent one does.
   */
  hasScopes(identity: Identity, needed: readonly string[]): boolean;
  /** Resolves once the authenticator can verify credentials (JWKS fetched); for /readyz and doctor. */
  ready(): Promise<void>;
}

/**
 * A configured API key: `id` names the client in logs, spans and rate limits. A key from
 * `MCP_API_KEYS` has no `scopes` and is not checked against them (it opens every tool); a key
 * from `MCP_API_KEYS_FILE` has a list, and opens only the items whose scopes it holds.
 */
export interface ApiKey {
  id: string;
  key: string;
  /** The scopes the key grants; undefined: not scoped at all. */
  scopes?: readonly string[];
  /** A human-readable name of the client (`ctx.identity.clientName`). */
  name?: string;
}
