/**
 * Builds and starts the Fastify app: CORS, the health probes, the OAuth protected resource
 * metadata, the MCP routes; and a graceful close that stops accepting, lets in-flight calls
 * finish, then closes streams.
 */
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  protectedResourceMetadata,
  RESOURCE_METADATA_WELL_KNOWN,
  resourceMetadataPath,
  resourceUrls,
} from '../../auth/resource-metadata.ts';
import type { Settings } from '../../config/settings.ts';
import type { CheckResult, HttpDeps } from '../deps.ts';
import { discoveryRoutes } from './discovery-routes.ts';
import { clientErrorHandler, installFallbackRefusals } from './fallback-refusals.ts';
import { mcpRoutes } from './routes.ts';

export interface HttpHandle {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly port: number;
  /** Resolves when the server has closed. */
  readonly closed: Promise<void>;
  close(timeoutMs: number): Promise<void>;
}

/** The public base URL: MCP_PUBLIC_URL, else the bound address. */
export function publicBaseUrl(settings: Settings, port = settings.MCP_HTTP_PORT): string {
  if (settings.MCP_PUBLIC_URL) return settings.MCP_PUBLIC_URL;
  const host = settings.MCP_HTTP_HOST.includes(':') ? `[${settings.MCP_HTTP_HOST}]` : settings.MCP_HTTP_HOST;
  return `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`;
}

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckResult>;
}

/** What /readyz reports: the server's checks (wired where it is assembled), and shutdown. */
async function readiness(server: HttpDeps, closing: boolean): Promise<Readiness> {
  const checks: Record<string, CheckResult> = {};
  if (closing) checks.shutdown = { ok: false, detail: 'shutting down' };
  Object.assign(checks, await server.readiness());
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}

export async function buildHttpApp(server: HttpDeps, settings: Settings): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: settings.MCP_MAX_BODY_BYTES,
    forceCloseConnections: false,
    // Our own JSON-RPC 503 answers requests during shutdown (fallback-refusals.ts).
    return503OnClosing: false,
    clientErrorHandler: clientErrorHandler(server),
    // Fastify accepts a hop count at run time; its types only list boolean, string and string[].
    trustProxy: settings.MCP_TRUST_PROXY as boolean | string[],
  });
  let closing = false;
  app.addHook('onClose', async () => {
    closing = true;
  });
  installFallbackRefusals(app, server, settings.MCP_HTTP_PATH);
  if (settings.MCP_CORS_ORIGINS.length > 0) {
    await app.register(cors, {
      origin: settings.MCP_CORS_ORIGINS.includes('*') ? '*' : settings.MCP_CORS_ORIGINS,
      methods: ['GET', 'POST', 'DELETE'],
      allowedHeaders: [
        'content-type',
        'accept',
        'authorization',
        'x-api-key',
        'mcp-session-id',
        'mcp-protocol-version',
        'mcp-method',
        'mcp-name',
        'last-event-id',
      ],
      exposedHeaders: ['mcp-session-id', 'mcp-protocol-version', 'www-authenticate', 'retry-after'],
    });
  }
  // Probes skip auth and Host checks (they are registered outside the MCP routes' scope).
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const r = await readiness(server, closing);
    const degraded = Object.values(r.checks).some((c) => c.detail !== undefined);
    return reply
      .code(r.ready ? 200 : 503)
      .send({ status: r.ready ? (degraded ? 'degraded' : 'ready') : 'not_ready', checks: r.checks });
  });
  if (settings.MCP_AUTH === 'oauth' && settings.MCP_OAUTH_ISSUER) {
    const urls = resourceUrls({
      publicUrl: publicBaseUrl(settings),
      mcpPath: settings.MCP_HTTP_PATH,
      audience: settings.MCP_OAUTH_AUDIENCE,
    });
    const document = protectedResourceMetadata({
      resource: urls.resource,
      authorizationServers: [settings.MCP_OAUTH_ISSUER],
      scopesSupported: [...new Set([...settings.MCP_OAUTH_SCOPES, ...server.toolScopes()])],
    });
    app.get(resourceMetadataPath(settings.MCP_HTTP_PATH), async () => document);
    // Hosted connectors probe the root well-known URL too (RFC 9728 §3.1 allows either); one endpoint, one document.
    if (resourceMetadataPath(settings.MCP_HTTP_PATH) !== RESOURCE_METADATA_WELL_KNOWN)
      app.get(RESOURCE_METADATA_WELL_KNOWN, async () => document);
  }
  await app.register(mcpRoutes, { server, settings });
  await app.register(discoveryRoutes, { server, settings });
  return app;
}

export async function startHttp(server: HttpDeps, settings: Settings): Promise<HttpHandle> {
  const app = await buildHttpApp(server, settings);
  await app.listen({ host: settings.MCP_HTTP_HOST, port: settings.MCP_HTTP_PORT });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.MCP_HTTP_PORT;
  const host = settings.MCP_HTTP_HOST.includes(':') ? `[${settings.MCP_HTTP_HOST}]` : settings.MCP_HTTP_HOST;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => {
    resolveClosed = r;
  });
  return {
    app,
    port,
    url: `http://${host}:${port}${settings.MCP_HTTP_PATH}`,
    closed,
    async close(timeoutMs) {
      // Stop accepting; wait for in-flight calls (bounded), then end what is left (SSE streams).
      const closing = app.close();
      const deadline = Date.now() + timeoutMs;
      while (server.dispatcher.inflightCount > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
      }
      app.server.closeAllConnections();
      await closing;
      resolveClosed();
    },
  };
}
