/**
 * What the HTTP transport is told, named for what each value does: where it listens, the
 * MCP endpoint's path, who may reach it (hosts, origins, CORS, proxies), its limits and its
 * SSE timing. Built once from the settings where the server is assembled
 * (src/assembly/transport-options.ts); the transport itself reads no setting.
 */

/** The OAuth protected resource metadata (RFC 9728) the transport serves. */
export interface ResourceMetadataOptions {
  /** The protected resource's identifier (the token audience). */
  readonly resource: string;
  readonly authorizationServers: readonly string[];
  /** Scopes every token needs; the tools' own scopes are added when the routes are built. */
  readonly scopes: readonly string[];
}

export interface HttpLimits {
  /** Largest request body in bytes (413 beyond). */
  readonly maxBodyBytes: number;
  /** Open GET (SSE) streams one 2025-wire session may hold here. */
  readonly maxStreamsPerSession: number;
  /** Events kept per SSE stream for resumption (the in-memory event store). */
  readonly eventRetention: number;
}

export interface HttpOptions {
  /** Address a standalone server binds; on a loopback bind the Host check is on by default. */
  readonly host: string;
  /** Port a standalone server binds (0: any free one). */
  readonly port: number;
  /** Path of the MCP endpoint. */
  readonly path: string;
  /** Public base URL clients reach the server on; undefined: the request's own origin. */
  readonly publicUrl: string | undefined;
  /** Host header values accepted (DNS-rebinding protection); empty: loopback names on a loopback bind. */
  readonly allowedHosts: readonly string[];
  /** Origin header values accepted besides the CORS origins. */
  readonly allowedOrigins: readonly string[];
  /** Browser origins allowed by CORS (`*`: any); empty: no CORS. */
  readonly corsOrigins: readonly string[];
  /** Proxies trusted for X-Forwarded-*: Fastify's `trustProxy` (false: none). */
  readonly trustProxy: boolean | number | readonly string[];
  readonly limits: HttpLimits;
  /**
   * SSE keep-alive comment interval, the `retry:` sent on resumable streams, and how long a
   * dropped standalone stream waits for its client's resume.
   */
  readonly sse: {
    readonly keepAliveMs: number;
    readonly retryMs: number;
    readonly standaloneGraceMs: number;
  };
  /** Serve the HTML landing page to browsers. */
  readonly landingPage: boolean;
  /** Served when OAuth protects the endpoint; undefined: none. */
  readonly resourceMetadata: ResourceMetadataOptions | undefined;
}

/** The public base URL: the configured one, else the bound address. */
export function baseUrlOf(
  options: Pick<HttpOptions, 'publicUrl' | 'host' | 'port'>,
  port = options.port,
): string {
  if (options.publicUrl) return options.publicUrl;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`;
}
