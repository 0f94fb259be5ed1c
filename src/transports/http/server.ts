/**
 * Builds and starts the Fastify app: the MCP routes, health probes, and a graceful close
 * that stops accepting, lets in-flight calls finish, then closes streams.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Settings } from '../../config/settings.ts';
import type { McpServer } from '../../server.ts';
import { mcpRoutes } from './routes.ts';

export interface HttpHandle {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly port: number;
  /** Resolves when the server has closed. */
  readonly closed: Promise<void>;
  close(timeoutMs: number): Promise<void>;
}

export async function buildHttpApp(server: McpServer, settings: Settings): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: settings.MCP_MAX_BODY_BYTES,
    forceCloseConnections: false,
    return503OnClosing: true,
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async () => ({ status: 'ready', sessions: server.sessions.size() }));
  await app.register(mcpRoutes, { server, settings });
  return app;
}

export async function startHttp(server: McpServer, settings: Settings): Promise<HttpHandle> {
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
      // Stop accepting; wait for in-flight calls (bounded), then end what is left.
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
