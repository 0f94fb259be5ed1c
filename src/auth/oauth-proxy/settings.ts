/**
 * The settings of `MCP_AUTH=oauth-proxy`, our own authorisation server in front of an
 * upstream identity provider. Merged into the one settings schema (src/config/settings.ts);
 * the rules between them (an issuer or the three URLs, a client id) are checked where the
 * server is built (settings-check.ts), so a bad combination stops start-up with its name.
 */
import { z } from 'zod';
import { envBool, envInt } from '../../base/env.ts';

/** An absolute http(s) URL, or unset. */
function url() {
  return z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
    .refine((v) => v === undefined || (URL.canParse(v) && /^https?:$/.test(new URL(v).protocol)), {
      error: 'expected an absolute http(s) URL',
    });
}

/** Scopes separated by commas or spaces (OAuth writes them with spaces, lists here take commas). */
function scopeList() {
  return z
    .string()
    .optional()
    .transform((v) => (v ?? '').split(/[\s,]+/).filter((s) => s !== ''));
}

/**
 * `MCP_OAUTH_SCOPE_MAP`: a JSON object from a claim test to the scopes it grants. A key is
 * `*` (everyone signed in) or `claim=value`, where `claim` is a dotted path into the upstream
 * identity (ID token claims, or the userinfo document) and matches when the value equals it or
 * is an array holding it: `{"*": ["tools:read"], "groups=admins": ["tools:write"]}`.
 */
const scopeMap = z
  .string()
  .optional()
  .transform((value, ctx): ScopeRule[] | undefined => {
    if (value === undefined || value.trim() === '') return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'expected a JSON object such as {"*": ["tools:read"]}' });
      return z.NEVER;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      ctx.addIssue({ code: 'custom', message: 'expected a JSON object from "*" or "claim=value" to scopes' });
      return z.NEVER;
    }
    const rules: ScopeRule[] = [];
    for (const [key, scopes] of Object.entries(parsed)) {
      if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && /^[\x21-\x7e]+$/.test(s))) {
        ctx.addIssue({ code: 'custom', message: `"${key}" must map to an array of scope strings` });
        return z.NEVER;
      }
      if (key === '*') {
        rules.push({ claim: undefined, value: undefined, scopes });
        continue;
      }
      const eq = key.indexOf('=');
      if (eq <= 0) {
        ctx.addIssue({ code: 'custom', message: `"${key}" is neither "*" nor "claim=value"` });
        return z.NEVER;
      }
      rules.push({ claim: key.slice(0, eq).trim(), value: key.slice(eq + 1).trim(), scopes });
    }
    return rules;
  });

/** One entry of `MCP_OAUTH_SCOPE_MAP`: everyone (`claim` undefined) or those whose claim holds `value`. */
export interface ScopeRule {
  readonly claim: string | undefined;
  readonly value: string | undefined;
  readonly scopes: readonly string[];
}

export const oauthProxySettingsShape = {
  MCP_OAUTH_UPSTREAM_ISSUER: url().describe(
    'With `MCP_AUTH=oauth-proxy`: the upstream OpenID Connect provider users sign in with, found by its discovery document (Google, Entra, Okta, Auth0, Keycloak).',
  ),
  MCP_OAUTH_UPSTREAM_AUTHORIZATION_URL: url().describe(
    'With `MCP_AUTH=oauth-proxy` and a plain OAuth 2.0 provider (no OpenID Connect, e.g. GitHub): its authorization endpoint.',
  ),
  MCP_OAUTH_UPSTREAM_TOKEN_URL: url().describe("The plain OAuth 2.0 provider's token endpoint."),
  MCP_OAUTH_UPSTREAM_USERINFO_URL: url().describe(
    "The plain OAuth 2.0 provider's user endpoint, which names the signed-in user (GitHub: https://api.github.com/user).",
  ),
  MCP_OAUTH_UPSTREAM_CLIENT_ID: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
    .describe(
      'Our one client id at the upstream provider (register `<MCP_PUBLIC_URL>/oauth/callback` as its redirect URI).',
    ),
  MCP_OAUTH_UPSTREAM_CLIENT_SECRET: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : v))
    .describe('Its client secret; unset for a public client (PKCE alone). Never logged.'),
  MCP_OAUTH_UPSTREAM_SCOPES: scopeList().describe(
    'Scopes asked of the upstream provider, separated by commas or spaces. Default: `openid profile email` for an OpenID Connect provider, none otherwise.',
  ),
  MCP_OAUTH_UPSTREAM_SUBJECT_CLAIM: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
    .describe(
      'The upstream claim that identifies a user (the `sub` of our tokens). Default: `sub`, else `id` (GitHub).',
    ),
  MCP_OAUTH_SCOPE_MAP: scopeMap.describe(
    'Which of our scopes a signed-in user may be granted, from upstream claims: a JSON object from `*` or `claim=value` to scopes, e.g. `{"*":["files:read"],"groups=admins":["files:write"]}`. Default: every scope the server knows.',
  ),
  MCP_OAUTH_DCR: envBool(false).describe(
    'With `MCP_AUTH=oauth-proxy`: also accept dynamic client registration (RFC 7591) for clients that do not send a Client ID Metadata Document yet.',
  ),
  MCP_OAUTH_CIMD_ALLOW_PRIVATE: envBool(false).describe(
    'Fetch Client ID Metadata Documents from private and loopback addresses too (tests, internal deployments); refused by default (SSRF).',
  ),
  MCP_OAUTH_CIMD_MAX_BYTES: envInt(5120, 256, 65_536).describe(
    'Largest Client ID Metadata Document fetched, in bytes.',
  ),
  MCP_OAUTH_CIMD_TIMEOUT_MS: envInt(2500, 100, 30_000).describe(
    'How long fetching a Client ID Metadata Document may take, body included.',
  ),
  MCP_OAUTH_ACCESS_TOKEN_TTL_SEC: envInt(600, 30, 86_400).describe(
    'Lifetime of the access tokens we issue (JWTs; revoked grants are refused at once all the same).',
  ),
  MCP_OAUTH_REFRESH_TOKEN_TTL_SEC: envInt(1_209_600, 300, 31_536_000).describe(
    'Lifetime of a refresh token; each use rotates it.',
  ),
  MCP_OAUTH_KEY_ROTATION_DAYS: envInt(30, 1, 365).describe(
    'How often the key that signs our access tokens is replaced (a new one is published a day, or a quarter of the period, before it signs).',
  ),
};

/** The parsed oauth-proxy settings (a slice of the core Settings). */
export interface OAuthProxySettings {
  readonly MCP_OAUTH_UPSTREAM_ISSUER: string | undefined;
  readonly MCP_OAUTH_UPSTREAM_AUTHORIZATION_URL: string | undefined;
  readonly MCP_OAUTH_UPSTREAM_TOKEN_URL: string | undefined;
  readonly MCP_OAUTH_UPSTREAM_USERINFO_URL: string | undefined;
  readonly MCP_OAUTH_UPSTREAM_CLIENT_ID: string | undefined;
  readonly MCP_OAUTH_UPSTREAM_CLIENT_SECRET: string | undefined;
  readonly MCP_OAUTH_UPSTREAM_SCOPES: readonly string[];
  readonly MCP_OAUTH_UPSTREAM_SUBJECT_CLAIM: string | undefined;
  readonly MCP_OAUTH_SCOPE_MAP: readonly ScopeRule[] | undefined;
  readonly MCP_OAUTH_DCR: boolean;
  readonly MCP_OAUTH_CIMD_ALLOW_PRIVATE: boolean;
  readonly MCP_OAUTH_CIMD_MAX_BYTES: number;
  readonly MCP_OAUTH_CIMD_TIMEOUT_MS: number;
  readonly MCP_OAUTH_ACCESS_TOKEN_TTL_SEC: number;
  readonly MCP_OAUTH_REFRESH_TOKEN_TTL_SEC: number;
  readonly MCP_OAUTH_KEY_ROTATION_DAYS: number;
}
