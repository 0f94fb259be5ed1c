/**
 * `MCP_AUTH=oauth-proxy` from the parsed settings, as the server assembly builds it: the
 * settings checked, the store chosen (Redis with `MCP_REDIS_URL`, so replicas share every
 * step; memory otherwise), the secrets derived from `MCP_STATE_SECRET`.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AuthSettings } from '../settings.ts';
import { type AuthorizationServer, createAuthorizationServer } from './authorization-server.ts';
import { createRedisOAuthStore } from './redis-store.ts';
import { createSecrets } from './secrets.ts';
import type { OAuthProxySettings } from './settings.ts';
import { checkOAuthProxySettings } from './settings-check.ts';
import { createMemoryOAuthStore } from './store.ts';

/** The settings it reads (a slice of the core Settings). */
export type ProxySettings = OAuthProxySettings &
  AuthSettings & {
    readonly MCP_STATE_SECRET: string | undefined;
    readonly MCP_SERVER_NAME: string;
    readonly MCP_TRUST_PROXY: boolean | number | readonly string[];
  };

export interface FromSettingsOptions {
  /** The public base URL (MCP_PUBLIC_URL, else the bound address). */
  publicUrl: string;
  /** The MCP endpoint's URL and its RFC 9728 document's. */
  resource: string;
  resourceMetadataUrl: string;
  /** The tools' scopes (read when needed: plugins register after this is built). */
  toolScopes(): readonly string[];
  /** The shared Redis (MCP_REDIS_URL); undefined: state in memory. */
  redis?: Redis | undefined;
  logger: Logger;
  fetch?: typeof fetch;
}

/**
 * @example
 * const as = await authorizationServerFromSettings(settings, { publicUrl, resource, resourceMetadataUrl, toolScopes, redis, logger });
 */
export async function authorizationServerFromSettings(
  settings: ProxySettings,
  options: FromSettingsOptions,
): Promise<AuthorizationServer> {
  checkOAuthProxySettings(settings, options.publicUrl);
  const mapScopes = (settings.MCP_OAUTH_SCOPE_MAP ?? []).flatMap((rule) => rule.scopes);
  return createAuthorizationServer({
    settings,
    publicUrl: options.publicUrl,
    resource: options.resource,
    resourceMetadataUrl: options.resourceMetadataUrl,
    requiredScopes: settings.MCP_OAUTH_SCOPES,
    knownScopes: () => [...new Set([...settings.MCP_OAUTH_SCOPES, ...options.toolScopes(), ...mapScopes])],
    store: options.redis ? createRedisOAuthStore({ redis: options.redis }) : createMemoryOAuthStore(),
    secrets: createSecrets(settings.MCP_STATE_SECRET),
    serverName: settings.MCP_SERVER_NAME,
    trustProxy: settings.MCP_TRUST_PROXY !== false,
    logger: options.logger.child({ component: 'oauth-proxy' }),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
