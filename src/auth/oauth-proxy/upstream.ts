/**
 * The upstream identity provider, as our one OAuth client of it (oauth4webapi): an OpenID
 * Connect provider found by its discovery document, or a plain OAuth 2.0 provider given by its
 * authorization, token and user URLs (GitHub's shape). Every sign-in uses PKCE (RFC 7636) and a
 * fresh `state` (and `nonce` with OpenID Connect); the identity is the validated ID token's
 * claims (plus the userinfo document when the provider has one) or the user endpoint's answer.
 */
import * as oauth from 'oauth4webapi';
import { isSecureUrl } from '../discovery.ts';

export interface UpstreamOptions {
  /** `MCP_OAUTH_UPSTREAM_ISSUER`: an OpenID Connect provider. */
  issuer?: string | undefined;
  /** The three URLs of a plain OAuth 2.0 provider. */
  authorizationUrl?: string | undefined;
  tokenUrl?: string | undefined;
  userinfoUrl?: string | undefined;
  clientId: string;
  /** Undefined: a public client (PKCE alone). */
  clientSecret?: string | undefined;
  scopes: readonly string[];
  /** The claim naming the user; default `sub`, else `id`. */
  subjectClaim?: string | undefined;
  /** Our callback, registered at the provider. */
  redirectUri: string;
  /** Each request's bound. Default 10 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** What the provider gave us for a user: kept server-side only (upstream-tokens.ts). */
export interface UpstreamTokenSet {
  accessToken: string;
  refreshToken?: string | undefined;
  /** When the access token expires (ms since the epoch); undefined: the provider did not say. */
  expiresAt?: number | undefined;
  scope?: string | undefined;
}

export interface UpstreamSignIn {
  /** The user's stable id at the provider (becomes our tokens' `sub`). */
  subject: string;
  /** What the provider says of the user, for `MCP_OAUTH_SCOPE_MAP`. */
  claims: Record<string, unknown>;
  tokens: UpstreamTokenSet;
}

/** A sign-in sent to the provider, to be finished by its callback. */
export interface PendingUpstream {
  state: string;
  verifier: string;
  nonce: string | undefined;
}

/**
 * The provider refused or failed. `error` is an RFC 6749 §4.1.2.1 code to hand on to the MCP
 * client (`access_denied`, `server_error`, `temporarily_unavailable`), or `invalid_grant` when
 * a refresh was refused (the upstream session is over).
 */
export class UpstreamError extends Error {
  readonly error: string;
  constructor(error: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UpstreamError';
    this.error = error;
  }
}

export interface Upstream {
  readonly mode: 'oidc' | 'oauth2';
  /** The provider's host, for pages and messages. */
  readonly host: string;
  /** Where to send the user, and what to keep until the callback. */
  start(): Promise<{ url: string; pending: PendingUpstream }>;
  /** Exchanges the callback's code and names the user. Throws UpstreamError. */
  finish(callback: URL, pending: PendingUpstream): Promise<UpstreamSignIn>;
  /** A new access token from a refresh token. Throws UpstreamError (`invalid_grant`: sign in again). */
  refresh(refreshToken: string): Promise<UpstreamTokenSet>;
  /** Resolves once the provider's metadata is known (discovery). */
  ready(): Promise<void>;
}

function tokenSet(response: oauth.TokenEndpointResponse, previousRefresh?: string): UpstreamTokenSet {
  return {
    accessToken: response.access_token,
    // RFC 6749 §6: the provider may keep the refresh token; then the old one stays valid.
    refreshToken: response.refresh_token ?? previousRefresh,
    expiresAt: typeof response.expires_in === 'number' ? Date.now() + response.expires_in * 1000 : undefined,
    scope: response.scope,
  };
}

/** What an oauth4webapi or network failure becomes, for the user and the logs (never a token). */
function upstreamFailure(what: string, host: string, err: unknown): UpstreamError {
  if (err instanceof UpstreamError) return err;
  if (err instanceof oauth.ResponseBodyError) {
    const code = err.error === 'invalid_grant' ? 'invalid_grant' : 'server_error';
    return new UpstreamError(
      code,
      `${host} refused ${what}: ${err.error}${err.error_description ? ` (${err.error_description})` : ''}`,
      { cause: err },
    );
  }
  if (err instanceof oauth.AuthorizationResponseError) {
    // The provider's own refusal (access_denied, ...), handed on as it is.
    return new UpstreamError(
      err.error,
      `${host} answered ${what} with ${err.error}${err.error_description ? `: ${err.error_description}` : ''}`,
      { cause: err },
    );
  }
  if (err instanceof TypeError || (err instanceof Error && err.name === 'TimeoutError')) {
    return new UpstreamError(
      'temporarily_unavailable',
      `${host} could not be reached for ${what}: ${err.message}`,
      { cause: err },
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new UpstreamError('server_error', `${host} gave an unusable answer to ${what}: ${message}`, {
    cause: err,
  });
}

/**
 * @example
 * const upstream = createUpstream({ issuer: 'https://accounts.google.com', clientId, clientSecret, scopes: ['openid', 'email'], redirectUri });
 */
export function createUpstream(options: UpstreamOptions): Upstream {
  const mode = options.issuer !== undefined ? 'oidc' : 'oauth2';
  const anyUrl = options.issuer ?? options.authorizationUrl ?? '';
  const host = URL.canParse(anyUrl) ? new URL(anyUrl).host : anyUrl;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const client: oauth.Client = { client_id: options.clientId };
  const auth =
    options.clientSecret === undefined ? oauth.None() : oauth.ClientSecretPost(options.clientSecret);
  const subjectClaims = options.subjectClaim ? [options.subjectClaim] : ['sub', 'id'];
  const wantsIdToken = mode === 'oidc' && options.scopes.includes('openid');

  const requestOptions = (url: string) => ({
    signal: AbortSignal.timeout(timeoutMs),
    // oauth4webapi's fetch type is narrower than the global one's; the global one fits it at run time.
    ...(options.fetch
      ? { [oauth.customFetch]: options.fetch as (url: string, init: RequestInit) => Promise<Response> }
      : {}),
    // http only on loopback (tests, local development), as everywhere else in the toolkit.
    ...(url.startsWith('http:') && isSecureUrl(url) ? { [oauth.allowInsecureRequests]: true } : {}),
  });

  let metadata: Promise<oauth.AuthorizationServer> | undefined;
  const server = (): Promise<oauth.AuthorizationServer> => {
    if (metadata === undefined) {
      metadata = (async () => {
        if (options.issuer === undefined) {
          return {
            // A plain OAuth 2.0 provider has no issuer identifier; its authorization URL's origin stands in.
            issuer: new URL(options.authorizationUrl ?? '').origin,
            authorization_endpoint: options.authorizationUrl,
            token_endpoint: options.tokenUrl,
            userinfo_endpoint: options.userinfoUrl,
          };
        }
        const issuer = new URL(options.issuer);
        try {
          const response = await oauth.discoveryRequest(issuer, {
            algorithm: 'oidc',
            ...requestOptions(options.issuer),
          });
          return await oauth.processDiscoveryResponse(issuer, response);
        } catch (err) {
          throw upstreamFailure('the discovery request', host, err);
        }
      })();
      // A failure is not kept: the next sign-in tries again.
      metadata.catch(() => {
        metadata = undefined;
      });
    }
    return metadata;
  };

  async function identify(
    as: oauth.AuthorizationServer,
    result: oauth.TokenEndpointResponse,
  ): Promise<Record<string, unknown>> {
    const idClaims = wantsIdToken ? oauth.getValidatedIdTokenClaims(result) : undefined;
    if (as.userinfo_endpoint === undefined) {
      if (idClaims === undefined)
        throw new UpstreamError(
          'server_error',
          `${host} gave no ID token and has no userinfo endpoint: nothing names the user`,
        );
      return { ...idClaims };
    }
    if (idClaims !== undefined) {
      const response = await oauth.userInfoRequest(
        as,
        client,
        result.access_token,
        requestOptions(as.userinfo_endpoint),
      );
      const info = await oauth.processUserInfoResponse(as, client, idClaims.sub, response);
      return { ...info, ...idClaims };
    }
    // A plain OAuth 2.0 user endpoint (GitHub's /user): JSON without the OpenID rules.
    const response = await (options.fetch ?? fetch)(as.userinfo_endpoint, {
      // GitHub's API refuses requests without a User-Agent.
      headers: {
        authorization: `Bearer ${result.access_token}`,
        accept: 'application/json',
        'user-agent': 'mcp-toolkit',
      },
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      throw new UpstreamError('server_error', `${host}'s user endpoint answered HTTP ${response.status}`);
    }
    const body = (await response.json()) as unknown;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new UpstreamError('server_error', `${host}'s user endpoint did not answer a JSON object`);
    }
    return body as Record<string, unknown>;
  }

  return {
    mode,
    host,
    async ready() {
      await server();
    },
    async start() {
      const as = await server();
      if (as.authorization_endpoint === undefined) {
        throw new UpstreamError('server_error', `${host} has no authorization endpoint`);
      }
      const pending: PendingUpstream = {
        state: oauth.generateRandomState(),
        verifier: oauth.generateRandomCodeVerifier(),
        nonce: wantsIdToken ? oauth.generateRandomNonce() : undefined,
      };
      const url = new URL(as.authorization_endpoint);
      url.searchParams.set('client_id', options.clientId);
      url.searchParams.set('redirect_uri', options.redirectUri);
      url.searchParams.set('response_type', 'code');
      if (options.scopes.length > 0) url.searchParams.set('scope', options.scopes.join(' '));
      url.searchParams.set('state', pending.state);
      url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(pending.verifier));
      url.searchParams.set('code_challenge_method', 'S256');
      if (pending.nonce !== undefined) url.searchParams.set('nonce', pending.nonce);
      return { url: url.href, pending };
    },
    async finish(callback, pending) {
      try {
        const as = await server();
        const params = oauth.validateAuthResponse(as, client, callback, pending.state);
        const response = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          auth,
          params,
          options.redirectUri,
          pending.verifier,
          requestOptions(as.token_endpoint ?? ''),
        );
        const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
          requireIdToken: wantsIdToken,
          ...(pending.nonce !== undefined ? { expectedNonce: pending.nonce } : {}),
        });
        const claims = await identify(as, result);
        const subject = subjectClaims
          .map((name) => claims[name])
          .find((v) => typeof v === 'string' || typeof v === 'number');
        if (subject === undefined || subject === '') {
          throw new UpstreamError(
            'server_error',
            `${host} did not name the user (no ${subjectClaims.join(' or ')} claim)`,
          );
        }
        return { subject: String(subject), claims, tokens: tokenSet(result) };
      } catch (err) {
        throw upstreamFailure('the sign-in', host, err);
      }
    },
    async refresh(refreshToken) {
      try {
        const as = await server();
        const response = await oauth.refreshTokenGrantRequest(
          as,
          client,
          auth,
          refreshToken,
          requestOptions(as.token_endpoint ?? ''),
        );
        return tokenSet(await oauth.processRefreshTokenResponse(as, client, response), refreshToken);
      } catch (err) {
        throw upstreamFailure('the token refresh', host, err);
      }
    },
  };
}
