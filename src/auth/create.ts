/**
 * Settings → authenticator: the one place `MCP_AUTH` is read. Cross-field rules a zod shape
 * cannot express (oauth needs an issuer, api_key needs keys) are checked here, at start-up,
 * and `MCP_API_KEYS_FILE` is read here, once.
 */
import { InternalCode, ToolkitError } from '../base/errors.ts';
import { createApiKeyAuthenticator } from './api-key.ts';
import { readApiKeysFile } from './api-key-file.ts';
import { createOAuthAuthenticator } from './oauth.ts';
import { type AuthSettings, RECOMMENDED_API_KEY_LENGTH } from './settings.ts';
import type { ApiKey, Authenticator } from './types.ts';

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
 * const auth = createAuthenticator(settings, oauthResourceUrls(settings)); // src/assembly/transport-options.ts
 */
export function createAuthenticator(
  settings: AuthSettings,
  options: CreateAuthenticatorOptions,
): Authenticator | undefined {
  switch (settings.MCP_AUTH) {
    case 'none':
      return undefined;
    case 'api_key': {
      const keys = configuredApiKeys(settings);
      if (keys.length === 0) {
        throw new ToolkitError(
          InternalCode.InvalidSetting,
          settings.MCP_API_KEYS_FILE === undefined
            ? 'MCP_AUTH=api_key needs MCP_API_KEYS (a comma-separated list of id:key pairs) or MCP_API_KEYS_FILE (a JSON file of keys with scopes)'
            : `MCP_AUTH=api_key has no keys: MCP_API_KEYS is empty and MCP_API_KEYS_FILE ${settings.MCP_API_KEYS_FILE} holds none`,
        );
      }
      return createApiKeyAuthenticator(keys);
    }
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
    case 'oauth-proxy':
      // Our own authorisation server holds state and keys: createAuthorizationServer
      // (src/auth/oauth-proxy/) builds it, with its authenticator, where the server is assembled.
      throw new ToolkitError(
        InternalCode.InvalidSetting,
        'MCP_AUTH=oauth-proxy is built with createAuthorizationServer (src/auth/oauth-proxy/authorization-server.ts), not createAuthenticator',
      );
  }
}

/**
 * The keys of `MCP_API_KEYS` (unscoped) followed by those of `MCP_API_KEYS_FILE` (scoped),
 * read from the file now. Throws ToolkitError (InvalidSetting) naming the file and the entry
 * when the file is unusable or an entry repeats an id or a key of `MCP_API_KEYS`.
 *
 * @example
 * configuredApiKeys(settings).length; // how many keys open the server
 */
export function configuredApiKeys(settings: AuthSettings): ApiKey[] {
  const inline = settings.MCP_API_KEYS;
  const path = settings.MCP_API_KEYS_FILE;
  if (path === undefined) return [...inline];
  const fromFile = readApiKeysFile(path);
  const inlineIds = new Set(inline.map((k) => k.id));
  const inlineKeys = new Map(inline.map((k) => [k.key, k.id]));
  fromFile.forEach(({ id, key }, index) => {
    const where = `MCP_API_KEYS_FILE ${path}: entry ${index + 1} ("${id}")`;
    if (inlineIds.has(id))
      throw new ToolkitError(
        InternalCode.InvalidSetting,
        `${where}: the id is also in MCP_API_KEYS (ids must be unique)`,
      );
    const other = inlineKeys.get(key);
    if (other !== undefined)
      throw new ToolkitError(
        InternalCode.InvalidSetting,
        `${where}: its key is also the key of "${other}" in MCP_API_KEYS (each client needs its own key)`,
      );
  });
  return [...inline, ...fromFile];
}

/**
 * Advice to log at start-up (and print in doctor): settings that work but are risky.
 * Never contains a key.
 */
export function authWarnings(settings: AuthSettings): string[] {
  const warnings: string[] = [];
  if (settings.MCP_AUTH === 'api_key') {
    let keys: ApiKey[];
    try {
      keys = configuredApiKeys(settings);
    } catch {
      // createAuthenticator reports an unusable file; a warning adds nothing.
      keys = [...settings.MCP_API_KEYS];
    }
    for (const { id, key, scopes } of keys) {
      if (key.length < RECOMMENDED_API_KEY_LENGTH) {
        warnings.push(
          `${scopes === undefined ? 'MCP_API_KEYS' : 'MCP_API_KEYS_FILE'}: the key of "${id}" is shorter than ${RECOMMENDED_API_KEY_LENGTH} characters; use a long random key (e.g. openssl rand -hex 32)`,
        );
      }
    }
  }
  if (settings.MCP_AUTH !== 'api_key' && settings.MCP_API_KEYS.length > 0) {
    warnings.push(`MCP_API_KEYS is set but MCP_AUTH=${settings.MCP_AUTH}: the keys are ignored`);
  }
  if (settings.MCP_AUTH !== 'api_key' && settings.MCP_API_KEYS_FILE !== undefined) {
    warnings.push(`MCP_API_KEYS_FILE is set but MCP_AUTH=${settings.MCP_AUTH}: the file is not read`);
  }
  if (settings.MCP_AUTH === 'oauth-proxy' && settings.MCP_OAUTH_ISSUER !== undefined) {
    warnings.push(
      'MCP_OAUTH_ISSUER is set but MCP_AUTH=oauth-proxy: this server is the issuer; the upstream provider is MCP_OAUTH_UPSTREAM_ISSUER',
    );
  } else if (settings.MCP_AUTH !== 'oauth' && settings.MCP_OAUTH_ISSUER !== undefined) {
    warnings.push(`MCP_OAUTH_ISSUER is set but MCP_AUTH=${settings.MCP_AUTH}: tokens are not checked`);
  }
  return warnings;
}
