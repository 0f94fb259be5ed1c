/**
 * Settings → authenticator: the one place `MCP_AUTH` is read. Cross-field rules a zod shape
 * cannot express (oauth needs an issuer, api_key needs keys) are checked here, at start-up.
 */
import { InternalCode, ToolkitError } from '../base/errors.ts';
import { createApiKeyAuthenticator } from './api-key.ts';
import { createOAuthAuthenticator } from './oauth.ts';
import { type AuthSettings, RECOMMENDED_API_KEY_LENGTH } from './settings.ts';
import type { Authenticator } from './types.ts';

export interface CreateAuthenticatorOptions {
  /**
   * The resource identifier (MCP_PUBLIC_URL + MCP_HTTP_PATH, see `resourceUrls`): the default
   * expected `aud`, used unless `MCP_OAUTH_AUDIENCE` is set.
   */
  audience: string;
  /** Where the RFC 9728 document is served; goes into every 401/403 challenge. */
  resourceMetadataUrl: string;
  /** For tests and proxies. */
  fetch?: typeof fetch;
}

/**
 * The authenticator for `MCP_AUTH`, or undefined for `none`. Throws ToolkitError
 * (InvalidSetting) naming the variable when the mode's settings are incomplete.
 *
 * @example
 * const auth = createAuthenticator(settings, oauthResourceUrls(settings)); // src/transport-options.ts
 */
export function createAuthenticator(
  settings: AuthSettings,
  options: CreateAuthenticatorOptions,
): Authenticator | undefined {
  switch (settings.MCP_AUTH) {
    case 'none':
      return undefined;
    case 'api_key':
      if (settings.MCP_API_KEYS.length === 0) {
        throw new ToolkitError(
          InternalCode.InvalidSetting,
          'MCP_AUTH=api_key needs MCP_API_KEYS: a comma-separated list of id:key pairs',
        );
      }
      return createApiKeyAuthenticator(settings.MCP_API_KEYS);
    case 'oauth':
      if (settings.MCP_OAUTH_ISSUER === undefined) {
        throw new ToolkitError(
          InternalCode.InvalidSetting,
          'MCP_AUTH=oauth needs MCP_OAUTH_ISSUER: the URL of the authorisation server that issues tokens',
        );
      }
      return createOAuthAuthenticator({
        issuer: settings.MCP_OAUTH_ISSUER,
        jwksUrl: settings.MCP_OAUTH_JWKS_URL,
        audience: settings.MCP_OAUTH_AUDIENCE ?? options.audience,
        requiredScopes: settings.MCP_OAUTH_SCOPES,
        algorithms: settings.MCP_OAUTH_ALGORITHMS,
        clockToleranceSec: settings.MCP_OAUTH_CLOCK_TOLERANCE_SEC,
        resourceMetadataUrl: options.resourceMetadataUrl,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
  }
}

/**
 * Advice to log at start-up (and print in doctor): settings that work but are risky.
 * Never contains a key.
 */
export function authWarnings(settings: AuthSettings): string[] {
  const warnings: string[] = [];
  if (settings.MCP_AUTH === 'api_key') {
    for (const { id, key } of settings.MCP_API_KEYS) {
      if (key.length < RECOMMENDED_API_KEY_LENGTH) {
        warnings.push(
          `MCP_API_KEYS: the key of "${id}" is shorter than ${RECOMMENDED_API_KEY_LENGTH} characters; use a long random key (e.g. openssl rand -hex 32)`,
        );
      }
    }
  }
  if (settings.MCP_AUTH !== 'api_key' && settings.MCP_API_KEYS.length > 0) {
    warnings.push(`MCP_API_KEYS is set but MCP_AUTH=${settings.MCP_AUTH}: the keys are ignored`);
  }
  if (settings.MCP_AUTH !== 'oauth' && settings.MCP_OAUTH_ISSUER !== undefined) {
    warnings.push(`MCP_OAUTH_ISSUER is set but MCP_AUTH=${settings.MCP_AUTH}: tokens are not checked`);
  }
  return warnings;
}
