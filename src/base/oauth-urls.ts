/**
 * The well-known URLs of OAuth discovery, computed from URLs alone: where a resource's
 * protected resource metadata lives (RFC 9728 §3.1) and where an issuer's authorisation
 * server metadata is looked for (RFC 8414 §3.1, then OpenID Connect Discovery §4). The auth
 * layer serves and fetches them; the test kit checks a server against them.
 */

/** The RFC 9728 §3.1 well-known suffix. */
export const RESOURCE_METADATA_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * The path this server serves the document at, for an MCP endpoint at `mcpPath`
 * (RFC 9728 §3.1 path insertion: `/mcp` → `/.well-known/oauth-protected-resource/mcp`).
 */
export function resourceMetadataPath(mcpPath: string): string {
  const path = mcpPath === '/' ? '' : mcpPath.replace(/\/+$/, '');
  return RESOURCE_METADATA_WELL_KNOWN + path;
}

/**
 * The metadata URL of a resource identifier, by RFC 9728 §3.1 path insertion: the well-known
 * suffix goes between the host and the path; a terminating slash after the host is dropped.
 *
 * @example
 * resourceMetadataUrl('https://mcp.example.com/mcp') // 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'
 */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}${RESOURCE_METADATA_WELL_KNOWN}${path}${url.search}`;
}

/**
 * The two well-known URLs of an issuer, in the order tried: RFC 8414 §3.1 inserts the suffix
 * before the issuer's path; OpenID Discovery §4 appends it.
 *
 * @example
 * discoveryUrls('https://as.example.com/tenant')
 * // ['https://as.example.com/.well-known/oauth-authorization-server/tenant',
 * //  'https://as.example.com/tenant/.well-known/openid-configuration']
 */
export function discoveryUrls(issuer: string): [string, string] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}
