/**
 * Authorisation server metadata discovery for the resource server side: RFC 8414 first,
 * then OpenID Connect Discovery 1.0 (MCP's authorization spec asks clients and servers to
 * try both, in that order). Used by the OAuth authenticator and by `doctor`.
 */

import { discoveryUrls } from '../base/oauth-urls.ts';

/** The fields we rely on; the rest of the document is kept as is. */
export interface AuthorizationServerMetadata {
  issuer: string;
  jwks_uri?: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  registration_endpoint?: string;
  scopes_supported?: string[];
  [field: string]: unknown;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True for https URLs, and for http on a loopback host (tests, local development). */
export function isSecureUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, hostname } = new URL(url);
  return protocol === 'https:' || (protocol === 'http:' && LOOPBACK_HOSTS.has(hostname));
}

function sameIssuer(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

/**
 * Fetches and checks the issuer's metadata. Throws an Error that names every URL tried and
 * what went wrong (for the 503 message, /readyz and doctor).
 */
export async function discoverAuthorizationServer(
  issuer: string,
  options: { fetch?: typeof fetch; timeoutMs?: number } = {},
): Promise<AuthorizationServerMetadata> {
  const doFetch = options.fetch ?? fetch;
  const failures: string[] = [];
  for (const url of discoveryUrls(issuer)) {
    let response: Response;
    try {
      response = await doFetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
      });
    } catch (err) {
      failures.push(`${url}: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      failures.push(`${url}: HTTP ${response.status}`);
      continue;
    }
    let doc: unknown;
    try {
      doc = await response.json();
    } catch {
      failures.push(`${url}: the body is not JSON`);
      continue;
    }
    if (typeof doc !== 'object' || doc === null || typeof (doc as { issuer?: unknown }).issuer !== 'string') {
      failures.push(`${url}: not an authorisation server metadata document`);
      continue;
    }
    const metadata = doc as AuthorizationServerMetadata;
    // RFC 8414 §3.3: the document's issuer must be the one asked for (mix-up defence).
    if (!sameIssuer(metadata.issuer, issuer)) {
      failures.push(`${url}: it names the issuer ${metadata.issuer}, not ${issuer}`);
      continue;
    }
    return metadata;
  }
  throw new Error(`No authorisation server metadata for ${issuer}: ${failures.join('; ')}`);
}
