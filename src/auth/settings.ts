/** The `MCP_*` settings of this area, merged into the one settings schema (src/config/settings.ts). */
import { z } from 'zod';
import { envBool, envEnum, envInt, envList, envString } from '../base/env.ts';
import { ASYMMETRIC_ALGORITHMS, DEFAULT_ALGORITHMS, isAsymmetricAlgorithm } from './algorithms.ts';
import type { ApiKey } from './types.ts';

/** Shorter keys are accepted but reported by `authWarnings` (guessable by brute force). */
export const RECOMMENDED_API_KEY_LENGTH = 16;

/**
 * `id:key,id:key`. The key may contain `:` (split at the first one) but not `,`. Issue
 * messages name the offending id or position, never a key.
 */
const apiKeys = z
  .string()
  .optional()
  .transform((value, ctx): ApiKey[] => {
    const keys: ApiKey[] = [];
    const entries = (value ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    const ids = new Set<string>();
    entries.forEach((entry, index) => {
      const colon = entry.indexOf(':');
      const id = colon === -1 ? '' : entry.slice(0, colon).trim();
      const key = colon === -1 ? '' : entry.slice(colon + 1).trim();
      if (id === '' || key === '') {
        ctx.addIssue({
          code: 'custom',
          message: `entry ${index + 1} is not "id:key" (expected a comma-separated list of id:key pairs)`,
        });
        return;
      }
      if (ids.has(id)) {
        ctx.addIssue({ code: 'custom', message: `the id "${id}" appears twice (ids must be unique)` });
        return;
      }
      ids.add(id);
      keys.push({ id, key });
    });
    if (new Set(keys.map((k) => k.key)).size !== keys.length) {
      ctx.addIssue({ code: 'custom', message: 'two ids share the same key (each client needs its own key)' });
    }
    return keys;
  });

/** An absolute http(s) URL, or unset. */
function envUrl() {
  return z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
    .refine((v) => v === undefined || (URL.canParse(v) && /^https?:$/.test(new URL(v).protocol)), {
      error: 'expected an absolute http(s) URL',
    });
}

const algorithms = envList(DEFAULT_ALGORITHMS).refine(
  (list) => list.length > 0 && list.every(isAsymmetricAlgorithm),
  {
    error: `expected a comma-separated list of asymmetric JWS algorithms (${ASYMMETRIC_ALGORITHMS.join(', ')}); "none" and HMAC (HS*) are refused`,
  },
);

export const authSettingsShape = {
  MCP_AUTH: envEnum(['none', 'api_key', 'oauth', 'oauth-proxy'], 'none').describe(
    'Authentication of HTTP requests: `none`, `api_key`, `oauth` (JWT access tokens from your authorisation server) or `oauth-proxy` (our own authorisation server in front of your identity provider, `MCP_OAUTH_UPSTREAM_*`).',
  ),
  MCP_ALLOW_PUBLIC_UNAUTHENTICATED: envBool(false).describe(
    'Allow `MCP_AUTH=none` on an HTTP bind beyond loopback (`MCP_HTTP_HOST` other than 127.0.0.1, ::1 or localhost): anyone who reaches the port can call every tool. Without it, such a start stops with exit code 2. For a local try or a network only you reach; otherwise use `api_key` or `oauth`.',
  ),
  MCP_API_KEYS: apiKeys.describe(
    'API keys as comma-separated `id:key` pairs (with `MCP_AUTH=api_key`); the id names the client, the key is never logged. Use keys of 16+ characters.',
  ),
  MCP_API_KEYS_FILE: envString().describe(
    'A JSON file of API keys with scopes, read at start-up (with `MCP_AUTH=api_key`): `[{ "id": "ci", "key": "...", "scopes": ["notes:read"], "name": "CI" }]`. A key opens only the tools, resources and prompts whose `scopes` it holds; keys of `MCP_API_KEYS` beside it open everything.',
  ),
  MCP_OAUTH_ISSUER: envUrl().describe(
    'OAuth authorisation server (issuer) whose tokens are accepted; its metadata gives the JWKS (with `MCP_AUTH=oauth`).',
  ),
  MCP_OAUTH_JWKS_URL: envUrl().describe('JWKS URL, overriding the one discovered from the issuer metadata.'),
  MCP_OAUTH_AUDIENCE: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
    .describe(
      'Expected `aud` of access tokens. Default: `MCP_PUBLIC_URL` plus `MCP_HTTP_PATH` (the resource).',
    ),
  MCP_OAUTH_SCOPES: envList([]).describe('Scopes every access token must carry (comma-separated).'),
  MCP_SCOPE_VISIBILITY: envEnum(['hide', 'challenge'], 'hide').describe(
    'Items (tools, resources, prompts) whose `scopes` a token or scoped API key lacks: `hide` leaves them out of lists and answers a call as for an unknown one; `challenge` lists them and answers 403 `insufficient_scope`, so a client can ask for the scope (step-up).',
  ),
  MCP_OAUTH_ALGORITHMS: algorithms.describe(
    'Accepted JWS algorithms of access tokens (asymmetric only). Default: RS*, PS*, ES*, EdDSA, Ed25519.',
  ),
  MCP_OAUTH_CLOCK_TOLERANCE_SEC: envInt(30, 0, 600).describe(
    'Clock skew tolerated when checking `exp`/`nbf` of access tokens, in seconds.',
  ),
};

/** The parsed auth settings (a slice of the core Settings). */
export interface AuthSettings {
  readonly MCP_AUTH: 'none' | 'api_key' | 'oauth' | 'oauth-proxy';
  readonly MCP_ALLOW_PUBLIC_UNAUTHENTICATED: boolean;
  readonly MCP_API_KEYS: readonly ApiKey[];
  readonly MCP_API_KEYS_FILE: string | undefined;
  readonly MCP_OAUTH_ISSUER: string | undefined;
  readonly MCP_OAUTH_JWKS_URL: string | undefined;
  readonly MCP_OAUTH_AUDIENCE: string | undefined;
  readonly MCP_OAUTH_SCOPES: readonly string[];
  readonly MCP_SCOPE_VISIBILITY: 'hide' | 'challenge';
  readonly MCP_OAUTH_ALGORITHMS: readonly string[];
  readonly MCP_OAUTH_CLOCK_TOLERANCE_SEC: number;
}
