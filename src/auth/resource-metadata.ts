/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728): the document that tells an MCP client
 * which authorisation server issues tokens for this server, and where it lives. The MCP
 * authorization spec requires it; clients find it from the 401 challenge's
 * `resource_metadata` parameter or by path insertion on the MCP endpoint's URL.
 */

import { resourceMetadataUrl } from '../base/oauth-urls.ts';

export interface ProtectedResourceMetadataOptions {
  /** The resource identifier: the MCP endpoint's public URL (e.g. `https://mcp.example.com/mcp`). */
  resource: string;
  /** Issuer identifiers of the authorisation servers (usually one: `MCP_OAUTH_ISSUER`). */
  authorizationServers: readonly string[];
  /** Scopes a client may ask for: `MCP_OAUTH_SCOPES` plus every tool's scopes. */
  scopesSupported?: readonly string[];
  /** Human-readable name (`resource_name`). */
  resourceName?: string;
  /** A page documenting the server (`resource_documentation`). */
  documentation?: string;
}

/** The RFC 9728 §2 document (JSON-ready). */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported: string[];
  resource_name?: string;
  resource_documentation?: string;
}

/**
 * Builds the document served at `resourceMetadataPath(mcpPath)`.
 *
 * @example
 * protectedResourceMetadata({ resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://as.example.com'] })
 */
export function protectedResourceMetadata(
  options: ProtectedResourceMetadataOptions,
): ProtectedResourceMetadata {
  const doc: ProtectedResourceMetadata = {
    resource: options.resource,
    authorization_servers: [...options.authorizationServers],
    // Tokens are accepted in the Authorization header only (RFC 6750 §2.1); MCP forbids query tokens.
    bearer_methods_supported: ['header'],
  };
  if (options.scopesSupported !== undefined && options.scopesSupported.length > 0) {
    doc.scopes_supported = [...new Set(options.scopesSupported)];
  }
  if (options.resourceName !== undefined) doc.resource_name = options.resourceName;
  if (options.documentation !== undefined) doc.resource_documentation = options.documentation;
  return doc;
}

export interface ResourceUrls {
  /** The resource identifier (the MCP endpoint's public URL). */
  resource: string;
  /** The URL clients fetch the metadata document from (put in 401 challenges). */
  resourceMetadataUrl: string;
  /** The `aud` tokens must carry: `MCP_OAUTH_AUDIENCE`, else the resource. */
  audience: string;
}

/**
 * Derives the resource identifier, metadata URL and expected audience from the public base
 * URL (`MCP_PUBLIC_URL`, or the bound address) and the MCP path (`MCP_HTTP_PATH`).
 *
 * @example
 * resourceUrls({ publicUrl: 'https://mcp.example.com', mcpPath: '/mcp' }).resource // 'https://mcp.example.com/mcp'
 */
export function resourceUrls(options: {
  publicUrl: string;
  mcpPath: string;
  audience?: string | undefined;
}): ResourceUrls {
  const base = new URL(options.publicUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const resource = `${base.origin}${prefix}${options.mcpPath === '/' ? '' : options.mcpPath}` || base.origin;
  return {
    resource,
    resourceMetadataUrl: resourceMetadataUrl(resource),
    audience: options.audience ?? resource,
  };
}
