/**
 * oidc-provider, configured as the authorisation server MCP clients see: OAuth 2.1 with the
 * code flow and PKCE (S256) only, Client ID Metadata Documents (its CIMD feature: https only,
 * special-use addresses refused at connect time, redirects refused, a size and a time limit,
 * cached by the document's HTTP caching headers), dynamic registration only when asked for,
 * one resource (our MCP endpoint) whose access tokens are JWTs (RFC 9068) signed with the key
 * ring's current key, refresh tokens rotated on every use (a reused one revokes its grant),
 * revocation (RFC 7009), and pages of our own. The sign-in itself is ours (interactions.ts):
 * every authorisation request needs one, so each grant carries its own upstream tokens.
 */

import type { AdapterClass } from './adapter.ts';
import { CIMD_FETCH_PURPOSE, cimdFetch } from './cimd.ts';
import { betterDescription, describeErrors, remember } from './error-details.ts';
import type { KeyRing, KeyRingView } from './key-ring.ts';
import { SIGNING_ALG } from './key-ring.ts';
import type { KoaContext, OidcModule, OidcProvider } from './oidc-types.ts';
import { errorPage, logoutPage, PAGE_HEADERS, signedOutPage } from './pages.ts';

/** Our endpoints, under one prefix so they never meet a plugin's routes. */
export const ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  jwks: '/oauth/jwks',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  end_session: '/oauth/logout',
  // Unused (features off) but given, so nothing answers outside the prefix.
  userinfo: '/oauth/userinfo',
  introspection: '/oauth/introspect',
  pushed_authorization_request: '/oauth/par',
  backchannel_authentication: '/oauth/backchannel',
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  challenge: '/oauth/challenge',
  credential: '/oauth/credential',
} as const;

/** The interaction pages' path (ours, not oidc-provider's). */
export const INTERACTION_PATH = '/oauth/interaction';

export interface ProviderOptions {
  oidc: OidcModule;
  /** Our issuer identifier: the public base URL. */
  issuer: string;
  /** The one resource we issue tokens for (the MCP endpoint's URL). */
  resource: string;
  /** Every scope the resource knows (read per request: plugins add tools). */
  scopes: () => readonly string[];
  adapter: AdapterClass;
  ring: KeyRing;
  view: KeyRingView;
  cookieKeys: readonly string[];
  accessTokenTtlSec: number;
  refreshTokenTtlSec: number;
  dcr: boolean;
  cimd: { allowPrivate: boolean; maxBytes: number; timeoutMs: number; fetch?: typeof fetch };
  /** The name our pages give the server. */
  serverName: string;
  /** Refuses a refresh whose upstream sign-in has ended (throws oidc-provider's InvalidGrant). */
  checkSignIn(grantId: string | undefined): Promise<void>;
  /** Trust X-Forwarded-* (the edge rewrites them from MCP_PUBLIC_URL before handing a request over). */
  proxy: boolean;
}

function page(ctx: KoaContext, body: string): void {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) ctx.set(name, value);
  ctx.type = 'html';
  ctx.body = body;
}

/**
 * @example
 * const provider = await createProvider({ oidc: await importOidcProvider(), issuer, resource, ... });
 */
export function createProvider(options: ProviderOptions): OidcProvider {
  const { oidc, resource, ring, view } = options;
  const { interactionPolicy } = oidc;
  const InvalidTarget = oidc.errors.InvalidTarget as new (description: string) => Error;
  const { Check } = interactionPolicy;

  const policy = interactionPolicy.base();
  // Every authorisation request signs in upstream afresh (interactions.ts), so each grant has
  // upstream tokens of its own and our consent page is shown every time, per client.
  policy
    .get('login')
    ?.checks.add(
      new Check('upstream_sign_in', 'each authorization signs in at the upstream provider', (ctx) =>
        ctx.oidc?.result?.login ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT,
      ),
    );

  const provider = new oidc.default(options.issuer, {
    adapter: options.adapter,
    clients: [],
    jwks: { keys: view.keys.map((k) => k.jwk) },
    cookies: { keys: [...options.cookieKeys] },
    routes: ROUTES,
    responseTypes: ['code'],
    scopes: ['openid', 'offline_access'],
    clientAuthMethods: ['none', 'private_key_jwt', 'client_secret_basic', 'client_secret_post'],
    // MCP clients are public clients (RFC 8252 native apps, browser apps): PKCE is their proof.
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: SIGNING_ALG,
    },
    enabledJWA: { idTokenSigningAlgValues: [SIGNING_ALG] },
    pkce: { required: () => true },
    findAccount: async (_ctx: unknown, sub: string, token?: { grantId?: string }) => {
      // At the token endpoint (a code, a refresh): the grant's upstream sign-in must still stand.
      if (token !== undefined) await options.checkSignIn(token.grantId);
      return { accountId: sub, claims: async () => ({ sub }) };
    },
    // Only this interaction's consent counts: a grant is never reused silently.
    loadExistingGrant: async (ctx: KoaContext & { oidc: { provider: OidcProvider } }) => {
      const grantId = ctx.oidc.result?.consent as { grantId?: string } | undefined;
      return grantId?.grantId
        ? (ctx.oidc.provider.Grant as unknown as { find(id: string): Promise<unknown> }).find(grantId.grantId)
        : undefined;
    },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    // RFC 9700 §4.14.2: every use rotates; a rotated token used again revokes the grant.
    rotateRefreshToken: true,
    extraTokenClaims: async (_ctx: unknown, token: { kind?: string; grantId?: string }) =>
      token.kind === 'AccessToken' && token.grantId ? { grant_id: token.grantId } : undefined,
    ttl: {
      AccessToken: options.accessTokenTtlSec,
      AuthorizationCode: 60,
      Grant: options.refreshTokenTtlSec,
      IdToken: options.accessTokenTtlSec,
      Interaction: 600,
      RefreshToken: options.refreshTokenTtlSec,
      Session: 600,
    },
    interactions: {
      policy,
      url: (_ctx: unknown, interaction: { uid: string }) =>
        `${options.issuer.replace(/\/+$/, '')}${INTERACTION_PATH}/${interaction.uid}`,
    },
    renderError: async (ctx: KoaContext, out: { error: string; error_description?: string }, err: Error) => {
      page(ctx, errorPage(out.error, betterDescription(err, ctx, options.cimd) ?? out.error_description));
    },
    fetch: cimdFetch(options.cimd),
    fetchResponseBodyLimits: {
      [CIMD_FETCH_PURPOSE]: options.cimd.maxBytes,
      jwks_uri: options.cimd.maxBytes,
      sector_identifier_uri: options.cimd.maxBytes,
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      introspection: { enabled: false },
      revocation: { enabled: true },
      registration: { enabled: options.dcr, initialAccessToken: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx: KoaContext, form: string) =>
          page(ctx, logoutPage(form, options.serverName)),
        postLogoutSuccessSource: async (ctx: KoaContext) => page(ctx, signedOutPage()),
      },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        cacheDuration: { min: 30, max: 86_400 },
      },
      resourceIndicators: {
        enabled: true,
        // MCP clients send `resource` (RFC 8707); one that does not still gets a token for us.
        defaultResource: async () => resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, indicator: string) => {
          if (indicator !== resource) {
            throw new InvalidTarget(`this server issues tokens for ${resource} only, not ${indicator}`);
          }
          const now = await ring.current();
          // The kid that signs now, if this provider's keystore has it.
          const kid = view.keys.some((k) => k.kid === now.signingKid) ? now.signingKid : view.signingKid;
          return {
            scope: [...new Set(options.scopes())].join(' '),
            audience: resource,
            accessTokenTTL: options.accessTokenTtlSec,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: SIGNING_ALG, kid } },
          };
        },
      },
    },
  });
  provider.proxy = options.proxy;
  for (const event of [
    'authorization.error',
    'grant.error',
    'revocation.error',
    'registration_create.error',
  ]) {
    provider.on(event, remember);
  }
  provider.use(describeErrors(options.cimd) as Parameters<OidcProvider['use']>[0]);
  // RFC 6749 §3.3: a request without `scope` is given every scope of the resource; the grant
  // then holds what the user may have (interactions.ts).
  provider.use(async (ctx, next) => {
    if (ctx.path === ROUTES.authorization && ctx.method === 'GET' && ctx.query.scope === undefined) {
      ctx.query = { ...ctx.query, scope: [...new Set(options.scopes())].join(' ') };
    }
    await next();
  });
  return provider;
}
