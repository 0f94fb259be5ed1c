/**
 * `MCP_AUTH=oauth-proxy` put together: our authorisation server (oidc-provider, provider.ts;
 * the user's steps, interactions.ts) in front of the upstream identity provider (upstream.ts),
 * its state in the store (memory or Redis), its signing keys in the key ring, and the resource
 * server side that verifies the tokens it issues (oauth.ts, with the ring's keys in process and
 * a revoked grant refused at once). The HTTP edge mounts `handle` on `paths`; tools reach the
 * user's upstream token through `upstreamToken`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JWTPayload } from 'jose';
import type { Logger } from 'pino';
import type { Identity } from '../../base/types.ts';
import { createOAuthAuthenticator, type OAuthAuthenticator } from '../oauth.ts';
import { createAdapter } from './adapter.ts';
import { CALLBACK_PATH, createInteractions } from './interactions.ts';
import { createKeyRing, type KeyRing, SIGNING_ALG } from './key-ring.ts';
import { importOidcProvider, type OidcModule, type OidcProvider } from './oidc-types.ts';
import { createProvider, INTERACTION_PATH } from './provider.ts';
import type { Secrets } from './secrets.ts';
import type { OAuthProxySettings } from './settings.ts';
import type { OAuthStore } from './store.ts';
import { createUpstream, type Upstream } from './upstream.ts';
import { createUpstreamTokens, UpstreamTokenError, type UpstreamTokens } from './upstream-tokens.ts';

const RFC8414 = '/.well-known/oauth-authorization-server';
const OIDC_DISCOVERY = '/.well-known/openid-configuration';

export interface AuthorizationServerOptions {
  settings: OAuthProxySettings;
  /** The public base URL (MCP_PUBLIC_URL): our issuer identifier. */
  publicUrl: string;
  /** The MCP endpoint's URL: the one resource, the audience of every token. */
  resource: string;
  /** Where our RFC 9728 document is (challenges name it). */
  resourceMetadataUrl: string;
  /** MCP_OAUTH_SCOPES: scopes every request needs. */
  requiredScopes: readonly string[];
  /** Every scope the resource knows (MCP_OAUTH_SCOPES, the tools' scopes, the scope map's). */
  knownScopes(): readonly string[];
  store: OAuthStore;
  secrets: Secrets;
  serverName: string;
  /** MCP_TRUST_PROXY is on. */
  trustProxy: boolean;
  logger: Logger;
  /** For tests: the upstream's and the CIMD fetches. */
  fetch?: typeof fetch;
  now?: () => number;
}

export interface AuthorizationServer {
  readonly issuer: string;
  /** The paths it answers: exact ones, and prefixes ending in `/*`. */
  readonly paths: readonly string[];
  /** Answers a request on one of `paths` (the edge has checked the Host). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Verifies our own access tokens at the MCP endpoint. */
  readonly authenticator: OAuthAuthenticator;
  /** The caller's upstream access token (see HandlerContext.upstreamToken). */
  upstreamToken(identity: Identity | undefined, options?: { forceRefresh?: boolean }): Promise<string>;
  readonly upstream: Upstream;
  readonly ring: KeyRing;
  close(): Promise<void>;
}

/**
 * @example
 * const as = await createAuthorizationServer({ settings, publicUrl, resource, ... });
 * app.all('/oauth/*', (req, reply) => { reply.hijack(); void as.handle(req.raw, reply.raw); });
 */
export async function createAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<AuthorizationServer> {
  const { settings, store, secrets, resource, logger } = options;
  const base = new URL(options.publicUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const issuer = `${base.origin}${prefix}`;
  const oidc: OidcModule = await importOidcProvider();
  const ring = createKeyRing({
    store,
    secrets,
    rotationMs: settings.MCP_OAUTH_KEY_ROTATION_DAYS * 86_400_000,
    tokenTtlMs: settings.MCP_OAUTH_ACCESS_TOKEN_TTL_SEC * 1000,
    ...(options.now ? { now: options.now } : {}),
  });
  const upstream = createUpstream({
    issuer: settings.MCP_OAUTH_UPSTREAM_ISSUER,
    authorizationUrl: settings.MCP_OAUTH_UPSTREAM_AUTHORIZATION_URL,
    tokenUrl: settings.MCP_OAUTH_UPSTREAM_TOKEN_URL,
    userinfoUrl: settings.MCP_OAUTH_UPSTREAM_USERINFO_URL,
    clientId: settings.MCP_OAUTH_UPSTREAM_CLIENT_ID ?? '',
    clientSecret: settings.MCP_OAUTH_UPSTREAM_CLIENT_SECRET,
    scopes:
      settings.MCP_OAUTH_UPSTREAM_SCOPES.length > 0 || settings.MCP_OAUTH_UPSTREAM_ISSUER === undefined
        ? settings.MCP_OAUTH_UPSTREAM_SCOPES
        : ['openid', 'profile', 'email'],
    subjectClaim: settings.MCP_OAUTH_UPSTREAM_SUBJECT_CLAIM,
    redirectUri: `${issuer}${CALLBACK_PATH}`,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const upstreamTokens: UpstreamTokens = createUpstreamTokens({
    store,
    secrets,
    upstream,
    ttlSec: settings.MCP_OAUTH_REFRESH_TOKEN_TTL_SEC,
    ...(options.now ? { now: options.now } : {}),
  });
  const adapter = createAdapter({
    store,
    invalidGrant: (description) => new (oidc.errors.InvalidGrant as new (d: string) => Error)(description),
    clientTtlSec: Math.max(settings.MCP_OAUTH_REFRESH_TOKEN_TTL_SEC, 30 * 86_400),
  });

  let built:
    | {
        /** The kids of the keystore it was built with. */
        keys: string;
        provider: OidcProvider;
        callback: (req: IncomingMessage, res: ServerResponse) => void;
      }
    | undefined;
  /**
   * The provider for the ring's current keys: a rotation that added or dropped a key builds a
   * new keystore (compared by kids, not by version: a Redis that lost its data starts counting
   * again with other keys).
   */
  async function provider(): Promise<NonNullable<typeof built>> {
    const view = await ring.current();
    const keys = view.keys.map((k) => k.kid).join(' ');
    if (built === undefined || built.keys !== keys) {
      const instance = createProvider({
        oidc,
        issuer,
        resource,
        scopes: options.knownScopes,
        adapter,
        ring,
        view,
        cookieKeys: secrets.cookieKeys,
        accessTokenTtlSec: settings.MCP_OAUTH_ACCESS_TOKEN_TTL_SEC,
        refreshTokenTtlSec: settings.MCP_OAUTH_REFRESH_TOKEN_TTL_SEC,
        dcr: settings.MCP_OAUTH_DCR,
        cimd: {
          allowPrivate: settings.MCP_OAUTH_CIMD_ALLOW_PRIVATE,
          maxBytes: settings.MCP_OAUTH_CIMD_MAX_BYTES,
          timeoutMs: settings.MCP_OAUTH_CIMD_TIMEOUT_MS,
          ...(options.fetch ? { fetch: options.fetch } : {}),
        },
        serverName: options.serverName,
        proxy: true,
        checkSignIn: async (grantId) => {
          if (grantId !== undefined && (await upstreamTokens.has(grantId))) return;
          throw new (oidc.errors.InvalidGrant as new (d: string) => Error)(
            `the sign-in at ${upstream.host} has ended or was revoked: sign in again`,
          );
        },
      });
      instance.on('server_error', (_ctx, err) =>
        logger.error({ err }, 'oauth-proxy: authorization server error'),
      );
      built = { keys, provider: instance, callback: instance.callback() };
    }
    return built;
  }
  await provider();

  const interactions = createInteractions({
    provider: async () => (await provider()).provider,
    store,
    upstream,
    upstreamTokens,
    resource,
    scopeRules: settings.MCP_OAUTH_SCOPE_MAP,
    knownScopes: options.knownScopes,
    serverName: options.serverName,
    secure: base.protocol === 'https:',
    baseUrl: issuer,
    logger,
  });

  const authenticator = createOAuthAuthenticator({
    issuer,
    audience: resource,
    requiredScopes: options.requiredScopes,
    algorithms: [SIGNING_ALG],
    resourceMetadataUrl: options.resourceMetadataUrl,
    keys: ring.verificationKey,
    // A JWT outlives its grant's revocation (a reused refresh token, a second use of a code,
    // revocation, the upstream session's end): the grant is looked up on every request.
    revoked: async (claims: JWTPayload) => {
      const grantId = claims.grant_id;
      if (typeof grantId !== 'string' || (await store.find('Grant', grantId)) === undefined) {
        return 'the grant behind the token was revoked';
      }
      return undefined;
    },
    ready: async () => {
      await ring.current();
      await upstream.ready();
    },
  });

  const metadataPaths = new Set([RFC8414, `${RFC8414}${prefix}`, OIDC_DISCOVERY]);
  return {
    issuer,
    paths: ['/oauth/*', ...metadataPaths],
    authenticator,
    upstream,
    ring,
    async handle(req, res) {
      const url = new URL(req.url ?? '/', issuer);
      if (await interactions.handle(req, res, url, INTERACTION_PATH)) return;
      // RFC 8414 §3: the same document as OpenID discovery, at its own well-known path.
      if (url.pathname === RFC8414 || url.pathname === `${RFC8414}${prefix}`)
        req.url = `${OIDC_DISCOVERY}${url.search}`;
      // URLs in documents and redirects are built from the public URL, never from what the request says.
      req.headers['x-forwarded-proto'] = base.protocol.slice(0, -1);
      req.headers['x-forwarded-host'] = base.host;
      if (!options.trustProxy) delete req.headers['x-forwarded-for'];
      if (prefix !== '')
        (req as IncomingMessage & { originalUrl?: string }).originalUrl = `${prefix}${req.url}`;
      const { callback } = await provider();
      await new Promise<void>((resolve) => {
        res.once('close', resolve);
        callback(req, res);
      });
    },
    async upstreamToken(identity, opts) {
      const grantId = identity?.claims?.grant_id;
      if (typeof grantId !== 'string') {
        throw new UpstreamTokenError(
          `This caller did not sign in at ${upstream.host} through this server, so there is no upstream token.`,
        );
      }
      return upstreamTokens.accessToken(grantId, opts);
    },
    async close() {
      await store.close();
    },
  };
}
