/**
 * The OAuth 2.1 resource server: JWT access tokens (RFC 9068) verified with jose against the
 * issuer's JWKS. What is checked, and why:
 * - the signature, with an allow-list of asymmetric algorithms, so a token cannot pick `none`
 *   or an HMAC keyed with our public key (RFC 8725 §2.1, §3.1);
 * - `iss` (the configured issuer), `aud` (this resource: MCP authorization spec, "Token
 *   Audience Binding", RFC 8707), `exp` required and `nbf`, with a small clock tolerance;
 * - the scopes every request needs (`MCP_OAUTH_SCOPES`).
 * The JWKS is cached; an unknown `kid` triggers a refetch at most once per cooldown, so key
 * rotation works and a flood of made-up kids does not flood the issuer.
 * 401 challenges carry `resource_metadata` (RFC 9728 §5.1) so clients can find the issuer.
 */

import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { createRemoteJWKSet, customFetch, errors as joseErrors, jwtVerify } from 'jose';
import { ErrorCode, InternalCode, ProtocolError, ToolkitError } from '../base/errors.ts';
import type { Identity } from '../base/types.ts';
import { DEFAULT_ALGORITHMS, isAsymmetricAlgorithm } from './algorithms.ts';
import { discoverAuthorizationServer, isSecureUrl } from './discovery.ts';
import { AuthError, bearerChallenge } from './errors.ts';
import { readBearerToken } from './headers.ts';
import { checkToolScopes, missingScopes, scopesFromClaims } from './scopes.ts';
import type { Authenticator, AuthRequest } from './types.ts';

export interface OAuthAuthenticatorOptions {
  /** `MCP_OAUTH_ISSUER`: tokens must carry it as `iss`; its metadata gives the JWKS. */
  issuer: string;
  /** `MCP_OAUTH_JWKS_URL`: skips discovery when set. */
  jwksUrl?: string | undefined;
  /** The expected `aud` (see `resourceUrls`): one value, or several accepted. */
  audience: string | readonly string[];
  /** `MCP_OAUTH_SCOPES`: scopes every request needs. */
  requiredScopes?: readonly string[];
  /** `MCP_OAUTH_ALGORITHMS`: asymmetric JWS algorithms accepted. */
  algorithms?: readonly string[];
  /** Where this server's RFC 9728 document is served (put in every challenge). */
  resourceMetadataUrl: string;
  /** `MCP_OAUTH_CLOCK_TOLERANCE_SEC`. Default 30. */
  clockToleranceSec?: number;
  /** Minimum time between two JWKS fetches triggered by unknown kids. Default 30 s. */
  jwksCooldownMs?: number;
  /** How long a fetched JWKS is used before it is fetched again. Default 10 min. */
  jwksCacheMaxAgeMs?: number;
  /** Timeout of each discovery and JWKS request. Default 5 s. */
  timeoutMs?: number;
  /** For tests and proxies; defaults to the global fetch. */
  fetch?: typeof fetch;
  /**
   * The issuer's keys in process (`MCP_AUTH=oauth-proxy`: our own key ring): no discovery,
   * no JWKS fetch.
   */
  keys?: JWTVerifyGetKey;
  /**
   * After the signature and claims pass: a reason to refuse the token anyway (its grant was
   * revoked), or undefined.
   */
  revoked?: (claims: JWTPayload) => Promise<string | undefined>;
  /** With `keys`: what `ready()` waits for instead of the JWKS. */
  ready?: () => Promise<void>;
}

export interface OAuthAuthenticator extends Authenticator {
  readonly kind: 'oauth';
  readonly issuer: string;
}

type RemoteKeys = ReturnType<typeof createRemoteJWKSet> | JWTVerifyGetKey;

function invalidSetting(message: string): ToolkitError {
  return new ToolkitError(InternalCode.InvalidSetting, message);
}

/** The reason a token was refused, short enough for `error_description`. */
function rejectionReason(err: unknown): string | undefined {
  if (err instanceof joseErrors.JWTExpired) return 'the token has expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return 'the token is meant for another resource (audience)';
    if (err.claim === 'iss') return 'the token comes from another issuer';
    if (err.claim === 'nbf') return 'the token is not valid yet';
    if (err.claim === 'exp' && err.reason === 'missing') return 'the token has no expiry';
    return `the token's ${err.claim} claim is invalid`;
  }
  if (err instanceof joseErrors.JWKSNoMatchingKey) return 'the token is signed by an unknown key';
  if (err instanceof joseErrors.JWKSMultipleMatchingKeys) return 'the token does not say which key signed it';
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'the signature is invalid';
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return 'the signing algorithm is not accepted';
  if (
    err instanceof joseErrors.JWSInvalid ||
    err instanceof joseErrors.JWTInvalid ||
    err instanceof joseErrors.JOSENotSupported ||
    err instanceof joseErrors.JWKInvalid
  ) {
    return 'the token is malformed';
  }
  // Anything else (JWKS timeout, non-200, invalid JWKS, network) is our side's problem.
  return undefined;
}

function clientIdOf(claims: JWTPayload): string {
  // RFC 9068 §2.2: client_id; azp in OpenID-style tokens; else the subject.
  for (const name of ['client_id', 'azp', 'sub'] as const) {
    const value = claims[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return 'unknown';
}

/**
 * Creates the oauth authenticator. Options are checked at once; discovery and the first JWKS
 * fetch happen on the first request or on `ready()`.
 *
 * @example
 * const auth = createOAuthAuthenticator({
 *   issuer: 'https://as.example.com',
 *   audience: 'https://mcp.example.com/mcp',
 *   resourceMetadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
 * });
 * const identity = await auth.authenticate({ headers: request.headers });
 */
export function createOAuthAuthenticator(options: OAuthAuthenticatorOptions): OAuthAuthenticator {
  const { issuer, resourceMetadataUrl } = options;
  if (!isSecureUrl(issuer)) {
    throw invalidSetting(`MCP_OAUTH_ISSUER must be an https URL (http only on loopback), got ${issuer}`);
  }
  if (options.jwksUrl !== undefined && !isSecureUrl(options.jwksUrl)) {
    throw invalidSetting(
      `MCP_OAUTH_JWKS_URL must be an https URL (http only on loopback), got ${options.jwksUrl}`,
    );
  }
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
  const refused = algorithms.filter((alg) => !isAsymmetricAlgorithm(alg));
  if (algorithms.length === 0 || refused.length > 0) {
    throw invalidSetting(
      `MCP_OAUTH_ALGORITHMS accepts asymmetric JWS algorithms only; refused: ${refused.join(', ') || '(empty list)'}`,
    );
  }
  const audience = typeof options.audience === 'string' ? [options.audience] : [...options.audience];
  if (audience.length === 0 || audience.some((a) => a === '')) {
    throw invalidSetting('MCP_OAUTH_AUDIENCE (or MCP_PUBLIC_URL) must name this server');
  }
  if (!URL.canParse(resourceMetadataUrl)) {
    throw invalidSetting(`the resource metadata URL is not a URL: ${resourceMetadataUrl}`);
  }
  const requiredScopes = [...(options.requiredScopes ?? [])];
  const clockTolerance = options.clockToleranceSec ?? 30;
  const timeoutMs = options.timeoutMs ?? 5000;
  const scopeHint = requiredScopes.length > 0 ? requiredScopes.join(' ') : undefined;

  let resolving: Promise<{ keys: RemoteKeys; issuer: string }> | undefined;

  async function resolveKeys(): Promise<{ keys: RemoteKeys; issuer: string }> {
    if (options.keys !== undefined) return { keys: options.keys, issuer };
    let jwksUrl = options.jwksUrl;
    let expectedIssuer = issuer;
    if (jwksUrl === undefined) {
      const metadata = await discoverAuthorizationServer(issuer, {
        timeoutMs,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
      if (typeof metadata.jwks_uri !== 'string' || !isSecureUrl(metadata.jwks_uri)) {
        throw new Error(`The metadata of ${issuer} has no usable jwks_uri (an https URL)`);
      }
      jwksUrl = metadata.jwks_uri;
      // The document's spelling is authoritative for `iss` (it may differ by a trailing slash).
      expectedIssuer = metadata.issuer;
    }
    const keys = createRemoteJWKSet(new URL(jwksUrl), {
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
      cacheMaxAge: options.jwksCacheMaxAgeMs ?? 600_000,
      timeoutDuration: timeoutMs,
      ...(options.fetch ? { [customFetch]: options.fetch } : {}),
    });
    return { keys, issuer: expectedIssuer };
  }

  /** Discovery is memoised; a failure is not, so the next request tries again. */
  function keySet(): Promise<{ keys: RemoteKeys; issuer: string }> {
    if (resolving === undefined) {
      resolving = resolveKeys();
      resolving.catch(() => {
        resolving = undefined;
      });
    }
    return resolving;
  }

  function unavailable(cause: unknown): ProtocolError {
    const detail = cause instanceof Error ? cause.message : String(cause);
    return new ProtocolError(
      ErrorCode.ServiceUnavailable,
      `Access tokens cannot be verified right now (authorisation server ${issuer} unreachable: ${detail}); retry later.`,
      { httpStatus: 503 },
    );
  }

  return {
    kind: 'oauth',
    issuer,

    async authenticate(req: AuthRequest): Promise<Identity> {
      const token = readBearerToken(req.headers.authorization);
      if (token === undefined) {
        // RFC 6750 §3.1: no error code when no credentials were sent.
        throw new AuthError(
          401,
          `Authentication required: send an access token from ${issuer} as Authorization: Bearer <token> (for example from \`mcp-toolkit login\`).`,
          bearerChallenge({ resource_metadata: resourceMetadataUrl, scope: scopeHint }),
        );
      }
      let resolved: { keys: RemoteKeys; issuer: string };
      try {
        resolved = await keySet();
      } catch (err) {
        throw unavailable(err);
      }
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(token, resolved.keys, {
          issuer: resolved.issuer,
          audience,
          algorithms,
          clockTolerance,
          requiredClaims: ['exp'],
        }));
      } catch (err) {
        const reason = rejectionReason(err);
        if (reason === undefined) throw unavailable(err);
        throw new AuthError(
          401,
          `The access token was rejected (${reason}): obtain a new one from ${issuer} (for example with \`mcp-toolkit login\`).`,
          bearerChallenge({
            error: 'invalid_token',
            error_description: reason,
            resource_metadata: resourceMetadataUrl,
          }),
        );
      }
      let revocation: string | undefined;
      try {
        revocation = await options.revoked?.(claims);
      } catch (err) {
        throw unavailable(err);
      }
      if (revocation !== undefined) {
        throw new AuthError(
          401,
          `The access token was rejected (${revocation}): sign in again at ${issuer}.`,
          bearerChallenge({
            error: 'invalid_token',
            error_description: revocation,
            resource_metadata: resourceMetadataUrl,
          }),
        );
      }
      const scopes = scopesFromClaims(claims);
      const identity: Identity = {
        clientId: clientIdOf(claims),
        scopes,
        claims: { ...claims },
        ...(typeof claims.sub === 'string' ? { subject: claims.sub } : {}),
      };
      if (missingScopes(scopes, requiredScopes).length > 0) {
        checkToolScopes(identity, requiredScopes, resourceMetadataUrl);
      }
      return identity;
    },

    checkScopes(identity: Identity, needed: readonly string[]): void {
      checkToolScopes(identity, needed, resourceMetadataUrl);
    },

    hasScopes: (identity, needed) => missingScopes(identity.scopes, needed).length === 0,

    async ready(): Promise<void> {
      if (options.ready !== undefined) return options.ready();
      const { keys } = await keySet();
      // Fetch only when there is no fresh copy, so a /readyz probe every few seconds costs nothing.
      if ('reload' in keys && !keys.fresh) await keys.reload();
    },
  };
}
