/**
 * What a server says about itself before anyone connects: identity, endpoint, auth mode and,
 * where the auth mode allows it, its tools, resources, prompts and instructions. The server
 * card and the landing page render this one object, built from the dispatcher's
 * `server/discover` body and the registry's listings, so neither can drift from what a
 * connected client sees.
 */
import { resourceUrls } from '../auth/resource-metadata.ts';
import type { JsonObject } from '../base/jsonrpc.ts';
import { isAppOnlySpec } from '../registry/apps.ts';
import type { Registry } from '../registry/registry.ts';
import { isRestricted, type Restrictable } from '../registry/visibility.ts';

export type AuthMode = 'none' | 'api_key' | 'oauth';

export interface AuthSummary {
  readonly mode: AuthMode;
  /** OAuth: the authorisation server whose tokens are accepted. */
  readonly issuer?: string;
  /** OAuth: where the RFC 9728 protected resource metadata is served. */
  readonly resourceMetadata?: string;
}

export interface ServerDescription {
  readonly name: string;
  readonly title?: string;
  readonly version: string;
  readonly description: string;
  /** Absolute URL of the MCP endpoint. */
  readonly endpoint: string;
  readonly auth: AuthSummary;
  readonly supportedVersions: readonly string[];
  readonly capabilities: JsonObject;
  /**
   * False when auth is on and MCP_PUBLIC_CARD is not: the lists and instructions below are
   * then left out, so an anonymous visitor learns only how to connect.
   */
  readonly listed: boolean;
  readonly instructions?: string;
  readonly tools?: readonly JsonObject[];
  readonly resources?: readonly JsonObject[];
  readonly resourceTemplates?: readonly JsonObject[];
  readonly prompts?: readonly JsonObject[];
}

/** What a description is built from: the parsed settings it reads, the dispatcher, the registry. */
export interface DescribableServer {
  readonly settings: {
    readonly MCP_HTTP_PATH: string;
    readonly MCP_AUTH: AuthMode | 'oauth-proxy';
    readonly MCP_OAUTH_ISSUER?: string | undefined;
    readonly MCP_PUBLIC_CARD: boolean;
    readonly MCP_SERVER_DESCRIPTION: string;
  };
  readonly dispatcher: {
    discovery(): JsonObject;
    readonly serverInfo: { readonly name: string; readonly version: string; readonly title?: string };
  };
  readonly registry: Pick<Registry, 'listingWhere'>;
}

/**
 * Describes the server as it is now (the registry may change at run time).
 *
 * @example
 * describeServer(server, 'https://files.example.com').endpoint; // 'https://files.example.com/mcp'
 */
export function describeServer(server: DescribableServer, baseUrl: string): ServerDescription {
  const { settings, dispatcher, registry } = server;
  const urls = resourceUrls({ publicUrl: baseUrl, mcpPath: settings.MCP_HTTP_PATH });
  const discovery = dispatcher.discovery();
  const info = dispatcher.serverInfo;
  const mode = settings.MCP_AUTH;
  const auth: AuthSummary =
    mode === 'oauth'
      ? {
          mode,
          issuer: settings.MCP_OAUTH_ISSUER,
          resourceMetadata: urls.resourceMetadataUrl,
        }
      : mode === 'oauth-proxy'
        ? // Our own authorisation server: to a client it is OAuth whose issuer is this server.
          { mode: 'oauth', issuer: baseUrl.replace(/\/+$/, ''), resourceMetadata: urls.resourceMetadataUrl }
        : { mode };
  const listed = mode === 'none' || settings.MCP_PUBLIC_CARD;
  const description: ServerDescription = {
    name: info.name,
    ...(info.title === undefined ? {} : { title: info.title }),
    version: info.version,
    description: settings.MCP_SERVER_DESCRIPTION,
    endpoint: urls.resource,
    auth,
    supportedVersions: discovery.supportedVersions as string[],
    capabilities: discovery.capabilities as JsonObject,
    listed,
  };
  if (!listed) return description;
  // With auth off, exactly what tools/list and the others answer a client that renders no
  // views (app-only tools are plumbing of their view). With auth on and a public card, also
  // without the items that depend on who asks (scopes, visibility rules): a visitor is nobody.
  const everyone = (spec: Restrictable) => !isAppOnlySpec(spec) && (mode === 'none' || !isRestricted(spec));
  return {
    ...description,
    ...(typeof discovery.instructions === 'string' ? { instructions: discovery.instructions } : {}),
    tools: registry.listingWhere('tools', everyone),
    resources: registry.listingWhere('resources', everyone),
    resourceTemplates: registry.listingWhere('resourceTemplates', everyone),
    prompts: registry.listingWhere('prompts', everyone),
  };
}
