/**
 * The transports' options, built once from the parsed settings: the one place where the
 * `MCP_*` names the HTTP transport depends on are read. The transports (src/transports/)
 * take these values under the names of what they do (host, port, path, limits, ...).
 */
import { type ResourceUrls, resourceUrls } from '../auth/resource-metadata.ts';
import type { Settings } from '../config/settings.ts';
import { baseUrlOf, type HttpOptions } from '../transports/http/options.ts';
import type { StdioOptions } from '../transports/stdio.ts';

/** The public base URL: MCP_PUBLIC_URL, else the bound address. */
export function publicBaseUrl(settings: Settings, port = settings.MCP_HTTP_PORT): string {
  return baseUrlOf(
    { publicUrl: settings.MCP_PUBLIC_URL, host: settings.MCP_HTTP_HOST, port: settings.MCP_HTTP_PORT },
    port,
  );
}

/** The issuer identifier of our own authorisation server: the public base URL, no trailing slash. */
function issuerOf(publicUrl: string): string {
  const url = new URL(publicUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * The OAuth resource's URLs from the settings: the resource identifier (the public base URL
 * and MCP_HTTP_PATH), its RFC 9728 metadata URL and the audience tokens must carry
 * (MCP_OAUTH_AUDIENCE, else the resource). The one place they are built: the authenticator
 * (assemble.ts), the metadata document (`httpOptions`) and `doctor` read them from here.
 */
export function oauthResourceUrls(settings: Settings): ResourceUrls {
  return resourceUrls({
    publicUrl: publicBaseUrl(settings),
    mcpPath: settings.MCP_HTTP_PATH,
    audience: settings.MCP_OAUTH_AUDIENCE,
  });
}

/**
 * @example
 * const app = await buildHttpApp(server, httpOptions(parseSettings(process.env)));
 */
export function httpOptions(settings: Settings): HttpOptions {
  // With oauth-proxy this server is the authorisation server (RFC 9728 §2): its issuer is the
  // public base URL (src/auth/oauth-proxy/authorization-server.ts).
  const oauth =
    settings.MCP_AUTH === 'oauth'
      ? settings.MCP_OAUTH_ISSUER
      : settings.MCP_AUTH === 'oauth-proxy'
        ? issuerOf(publicBaseUrl(settings))
        : undefined;
  return {
    host: settings.MCP_HTTP_HOST,
    port: settings.MCP_HTTP_PORT,
    path: settings.MCP_HTTP_PATH,
    publicUrl: settings.MCP_PUBLIC_URL,
    allowedHosts: settings.MCP_ALLOWED_HOSTS,
    allowedOrigins: settings.MCP_ALLOWED_ORIGINS,
    corsOrigins: settings.MCP_CORS_ORIGINS,
    trustProxy: settings.MCP_TRUST_PROXY,
    limits: {
      maxBodyBytes: settings.MCP_MAX_BODY_BYTES,
      maxStreamsPerSession: settings.MCP_MAX_STREAMS_PER_SESSION,
      eventRetention: settings.MCP_EVENT_RETENTION,
    },
    sse: {
      keepAliveMs: settings.MCP_SSE_KEEPALIVE_MS,
      retryMs: settings.MCP_SSE_RETRY_MS,
      standaloneGraceMs: settings.MCP_SSE_STANDALONE_GRACE_MS,
    },
    landingPage: settings.MCP_LANDING_PAGE,
    resourceMetadata: oauth
      ? {
          resource: oauthResourceUrls(settings).resource,
          authorizationServers: [oauth],
          scopes: settings.MCP_OAUTH_SCOPES,
        }
      : undefined,
  };
}

/** The stdio transport's options (its input and output are the process's unless given). */
export function stdioOptions(settings: Settings): StdioOptions {
  return { maxLineBytes: settings.MCP_MAX_BODY_BYTES };
}
