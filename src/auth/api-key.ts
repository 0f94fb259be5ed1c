/**
 * API-key authentication: a key in `X-API-Key` or `Authorization: Bearer <key>`.
 * Keys are compared as SHA-256 digests with `timingSafeEqual`, against every configured key
 * with no early exit, so neither the key's length nor which entry matched leaks through
 * timing. A key never appears in a message, an error or a log.
 *
 * A key once accepted is remembered by its value, so its next requests cost one Map lookup
 * instead of a SHA-256 (which cost 2 to 3 µs per request in a loaded server). Only accepted
 * keys enter that map, so it never holds more than the configured keys, and an unknown key
 * always takes the digest path. The lookup's timing tells nothing useful: V8 compares two
 * strings' contents only when their 32-bit hashes are equal, so a wrong key is not compared
 * byte by byte against a right one (and whether a key is valid, the answer says anyway).
 *
 * Scopes: a key from `MCP_API_KEYS_FILE` grants the scopes listed for it and nothing more, so
 * per-item `scopes` and `MCP_SCOPE_VISIBILITY` work with keys as with OAuth tokens (a missing
 * scope is 403 `insufficient_scope`, RFC 6750 §3.1). A key from `MCP_API_KEYS` carries no
 * scopes and is not checked against them: it opens every item, as such keys always have.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import { InternalCode, ToolkitError } from '../base/errors.ts';
import type { Identity } from '../base/types.ts';
import { AuthError, bearerChallenge } from './errors.ts';
import { readBearerToken, singleHeader } from './headers.ts';
import { checkToolScopes, missingScopes } from './scopes.ts';
import type { ApiKey, Authenticator, AuthRequest } from './types.ts';

const REALM = 'mcp';

function digest(value: string): Buffer {
  // One-shot hash, no Hash object per request (this runs on every authenticated call). The
  // hex output decoded back is ~5x cheaper on Node 24 than asking for 'buffer' output
  // (0.5 µs against 2.2 µs per key, measured with bench-style loops).
  return Buffer.from(hash('sha256', value), 'hex');
}

/**
 * Creates the api_key authenticator. Checks its keys at once: ids and keys non-empty,
 * ids unique, no key shared by two ids.
 *
 * @example
 * const auth = createApiKeyAuthenticator([{ id: 'ci', key: 'a-long-random-secret', scopes: ['notes:read'] }]);
 * const identity = await auth.authenticate({ headers: { 'x-api-key': 'a-long-random-secret' } });
 * identity.clientId; // 'ci'
 * auth.hasScopes(identity, ['notes:write']); // false
 */
export function createApiKeyAuthenticator(keys: readonly ApiKey[]): Authenticator {
  if (keys.length === 0) {
    throw new ToolkitError(
      InternalCode.InvalidSetting,
      'MCP_AUTH=api_key has no keys: give id:key pairs in MCP_API_KEYS or a JSON file in MCP_API_KEYS_FILE',
    );
  }
  const ids = new Set<string>();
  const secrets = new Set<string>();
  for (const { id, key } of keys) {
    if (id === '' || key === '') {
      throw new ToolkitError(
        InternalCode.InvalidSetting,
        'API keys: every entry needs a non-empty id and key',
      );
    }
    if (ids.has(id))
      throw new ToolkitError(InternalCode.InvalidSetting, `API keys: the id "${id}" appears twice`);
    if (secrets.has(key))
      throw new ToolkitError(InternalCode.InvalidSetting, 'API keys: two ids share one key');
    ids.add(id);
    secrets.add(key);
  }
  // The identities of unscoped keys: only the objects made here, so a copy (or an identity
  // from elsewhere) is held to its scopes.
  const unscoped = new WeakSet<Identity>();
  const table = keys.map(({ id, key, scopes, name }) => {
    const identity: Identity = Object.freeze({
      clientId: id,
      ...(name !== undefined ? { clientName: name } : {}),
      scopes: Object.freeze([...(scopes ?? [])]) as readonly string[],
    });
    if (scopes === undefined) unscoped.add(identity);
    return { id, digest: digest(key), identity };
  });
  const accepted = new Map<string, Identity>();
  const hasScopes = (identity: Identity, needed: readonly string[]): boolean =>
    unscoped.has(identity) || missingScopes(identity.scopes, needed).length === 0;

  return {
    kind: 'api_key',
    async authenticate(req: AuthRequest): Promise<Identity> {
      const presented = presentedKey(req);
      if (presented === undefined || presented === '') {
        // RFC 6750 §3.1: a request without credentials gets a challenge without an error code.
        throw new AuthError(
          401,
          'Authentication required: send your API key in the X-API-Key header or as Authorization: Bearer <key>.',
          bearerChallenge({ realm: REALM }),
        );
      }
      const known = accepted.get(presented);
      if (known !== undefined) return known;
      const candidate = digest(presented);
      let matched: Identity | undefined;
      for (const entry of table) {
        const equal = timingSafeEqual(candidate, entry.digest);
        if (equal && matched === undefined) matched = entry.identity;
      }
      if (matched === undefined) {
        throw new AuthError(
          401,
          'The API key was not recognised: check the key you were given (X-API-Key or Authorization: Bearer).',
          bearerChallenge({ realm: REALM, error: 'invalid_token' }),
        );
      }
      accepted.set(presented, matched);
      return matched;
    },
    known(req: AuthRequest): Identity | undefined {
      const presented = presentedKey(req);
      return presented ? accepted.get(presented) : undefined;
    },
    checkScopes(identity: Identity, needed: readonly string[]): void {
      if (!hasScopes(identity, needed)) checkToolScopes(identity, needed);
    },
    hasScopes,
    async ready(): Promise<void> {},
  };
}

/** The key a request presents: `X-API-Key`, else a bearer token. */
function presentedKey(req: AuthRequest): string | undefined {
  const headerKey = singleHeader(req.headers['x-api-key']);
  return headerKey ? headerKey : readBearerToken(req.headers.authorization);
}
