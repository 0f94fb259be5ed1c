/**
 * Which credentials an operation's calls carry, from its security requirements (OpenAPI 3
 * §Security Requirement Object: a list of alternatives, each naming schemes that must all be
 * satisfied; `{}` makes auth optional; `security: []` turns it off) and what the settings hold:
 * `MCP_OPENAPI_BEARER_TOKEN` satisfies http bearer, OAuth 2 and OpenID Connect schemes;
 * `MCP_OPENAPI_API_KEY` satisfies apiKey schemes, placed where the scheme says unless
 * `MCP_OPENAPI_API_KEY_HEADER` / `_QUERY` say otherwise. Basic auth and mutual TLS are not
 * sent: an operation needing only those is reported by doctor.
 */
import type { ApiDocument, Operation, ParameterLocation, SecuritySchemeObject } from './document.ts';

export type Credential =
  | { readonly kind: 'bearer'; readonly token: string }
  | {
      readonly kind: 'apiKey';
      readonly in: 'header' | 'query' | 'cookie';
      readonly name: string;
      readonly value: string;
    };

export interface CredentialSettings {
  readonly bearerToken: string | undefined;
  readonly apiKey: string | undefined;
  readonly apiKeyHeader: string | undefined;
  readonly apiKeyQuery: string | undefined;
}

export interface CredentialPlan {
  /** What every call of the operation carries. */
  readonly credentials: readonly Credential[];
  /** Set when the operation requires credentials the settings do not hold: what is missing. */
  readonly unmet: string | undefined;
  /** Where the operation's API keys go, so parameters declaring them are not asked of the model. */
  readonly keyPlacements: readonly { in: ParameterLocation; name: string }[];
}

/** Where an API key without a scheme goes when the document declares no security at all. */
const DEFAULT_KEY_HEADER = 'X-API-Key';

function keyPlacement(
  settings: CredentialSettings,
  scheme: SecuritySchemeObject | undefined,
): { in: 'header' | 'query' | 'cookie'; name: string } {
  if (settings.apiKeyHeader !== undefined) return { in: 'header', name: settings.apiKeyHeader };
  if (settings.apiKeyQuery !== undefined) return { in: 'query', name: settings.apiKeyQuery };
  if (scheme?.in !== undefined && scheme.name !== undefined) return { in: scheme.in, name: scheme.name };
  return { in: 'header', name: DEFAULT_KEY_HEADER };
}

/** The credential one scheme asks for, when the settings hold it. */
function satisfy(
  scheme: SecuritySchemeObject | undefined,
  settings: CredentialSettings,
): Credential | undefined {
  if (scheme === undefined) return undefined;
  const bearer =
    (scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer') ||
    scheme.type === 'oauth2' ||
    scheme.type === 'openIdConnect';
  if (bearer)
    return settings.bearerToken === undefined ? undefined : { kind: 'bearer', token: settings.bearerToken };
  if (scheme.type === 'apiKey' && settings.apiKey !== undefined) {
    return { kind: 'apiKey', ...keyPlacement(settings, scheme), value: settings.apiKey };
  }
  return undefined;
}

/** What a scheme needs, for doctor: `MCP_OPENAPI_API_KEY (scheme api_key)`. */
function needs(name: string, scheme: SecuritySchemeObject | undefined): string {
  if (scheme === undefined) return `the undeclared scheme "${name}"`;
  if (scheme.type === 'apiKey') return `MCP_OPENAPI_API_KEY (scheme "${name}")`;
  if (scheme.type === 'http' && scheme.scheme?.toLowerCase() !== 'bearer') {
    return `HTTP ${scheme.scheme ?? ''} auth, which the plugin does not send (scheme "${name}")`;
  }
  if (scheme.type === 'mutualTLS') return `mutual TLS, which the plugin does not do (scheme "${name}")`;
  return `MCP_OPENAPI_BEARER_TOKEN (scheme "${name}")`;
}

/**
 * The credentials of one operation.
 *
 * @example
 * const { credentials, unmet } = credentialsFor(op, api, settings);
 */
export function credentialsFor(
  op: Operation,
  api: ApiDocument,
  settings: CredentialSettings,
): CredentialPlan {
  const schemes = api.components?.securitySchemes ?? {};
  const requirements = op.operation.security ?? api.security;
  const keyPlacements = [
    ...(settings.apiKeyHeader !== undefined ? [{ in: 'header' as const, name: settings.apiKeyHeader }] : []),
    ...(settings.apiKeyQuery !== undefined ? [{ in: 'query' as const, name: settings.apiKeyQuery }] : []),
    ...(requirements ?? []).flatMap((alt) =>
      Object.keys(alt).flatMap((name) => {
        const s = schemes[name];
        return s?.type === 'apiKey' && s.in !== undefined && s.name !== undefined
          ? [{ in: s.in, name: s.name }]
          : [];
      }),
    ),
  ];
  const declaresSecurity = Object.keys(schemes).length > 0 || api.security !== undefined;
  if (requirements === undefined && declaresSecurity) {
    // The document describes its auth, and this operation needs none: keep the secrets home.
    return { credentials: [], unmet: undefined, keyPlacements };
  }
  if (requirements === undefined) {
    // The document says nothing about auth: send whatever the operator configured.
    const firstKeyScheme = Object.values(schemes).find((s) => s.type === 'apiKey');
    const credentials: Credential[] = [];
    if (settings.bearerToken !== undefined) credentials.push({ kind: 'bearer', token: settings.bearerToken });
    if (settings.apiKey !== undefined) {
      const placement = keyPlacement(settings, firstKeyScheme);
      credentials.push({ kind: 'apiKey', ...placement, value: settings.apiKey });
      keyPlacements.push(placement);
    }
    return { credentials, unmet: undefined, keyPlacements };
  }
  if (requirements.length === 0) return { credentials: [], unmet: undefined, keyPlacements };
  for (const alternative of requirements) {
    const names = Object.keys(alternative);
    if (names.length === 0) continue;
    const got = names.map((name) => satisfy(schemes[name], settings));
    if (got.every((c) => c !== undefined)) return { credentials: got, unmet: undefined, keyPlacements };
  }
  // Optional auth (`{}` among the alternatives) needs nothing when nothing else is met.
  if (requirements.some((alt) => Object.keys(alt).length === 0)) {
    return { credentials: [], unmet: undefined, keyPlacements };
  }
  const unmet = requirements
    .map((alt) =>
      Object.keys(alt)
        .map((name) => needs(name, schemes[name]))
        .join(' and '),
    )
    .join(', or ');
  return { credentials: [], unmet, keyPlacements };
}
