/**
 * Scope checks shared by the request-wide check (`MCP_OAUTH_SCOPES`) and per-tool checks
 * (`defineTool({ scopes })`). A caller missing a scope gets 403 with
 * `error="insufficient_scope"` and the needed `scope` in the challenge (RFC 6750 §3.1), so an
 * MCP client can step up by asking for them (MCP authorization, "Scope Challenge Handling").
 */
import type { Identity } from '../base/types.ts';
import { AuthError, bearerChallenge } from './errors.ts';

/** Scopes of a verified token: the `scope` claim (space-separated, RFC 9068 §2.2.3) or `scp` (array or string). */
export function scopesFromClaims(claims: Readonly<Record<string, unknown>>): string[] {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === 'string') return raw.split(' ').filter((s) => s !== '');
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string' && s !== '');
  return [];
}

/** The scopes of `needed` that `granted` lacks. */
export function missingScopes(granted: readonly string[], needed: readonly string[]): string[] {
  return needed.filter((scope) => !granted.includes(scope));
}

/**
 * Throws AuthError 403 when `identity` lacks any of `needed`. The challenge names every
 * needed scope (not only the missing ones) and the resource metadata URL.
 *
 * @example
 * checkToolScopes(ctx.identity, ['files:write'], 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
 */
export function checkToolScopes(
  identity: Identity,
  needed: readonly string[],
  resourceMetadataUrl?: string,
): void {
  const missing = missingScopes(identity.scopes, needed);
  if (missing.length === 0) return;
  throw new AuthError(
    403,
    `Insufficient scope: this needs ${needed.join(' ')} (missing ${missing.join(' ')}); obtain a token or an API key that grants them.`,
    bearerChallenge({
      error: 'insufficient_scope',
      scope: needed.join(' '),
      resource_metadata: resourceMetadataUrl,
    }),
    { data: { requiredScopes: [...needed] } },
  );
}
