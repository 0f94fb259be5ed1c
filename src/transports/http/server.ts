/**
 * The standalone HTTP server: a Fastify app of its own with the health probes, JSON-RPC
 * refusals for what Fastify and Node would answer themselves, and the transport's routes
 * (mount.ts, the same ones the Fastify plugin mounts on an application's app); and a
 * graceful close that stops accepting, lets in-flight calls finish, then closes streams.
 */
import type { ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ProtocolError } from '../../base/errors.ts';
import type { HttpDeps } from '../deps.ts';
import { clientErrorHandler, installFallbackRefusals } from './fallback-refusals.ts';
import { drain, installCors, mountMcp } from './mount.ts';
import type { HttpOptions } from './options.ts';
import { readinessReport } from './probes.ts';

export interface HttpHandle {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly port: number;
  /** Resolves when the server has closed. */
  readonly closed: Promise<void>;
  /** Event streams (SSE) open now, for the `mcp.server.open_streams` gauge. */
  streamCount(): number;
  /**
   * Announces the drain to load balancers: `/readyz` answers 503 from now on (`shutdown`:
   * draining) while every request is still served; resolves after `delayMs`, when the caller
   * goes on to `close`.
   */
  announceDrain(delayMs: number): Promise<void>;
  close(timeoutMs: number): Promise<void>;
}

/** The SSE responses of each app built here, for its close to end. */
const openStreams = new WeakMap<FastifyInstance, Set<ServerResponse>>();
/** How to stop each app's requests in flight, for its close past its deadline. */
const openInterrupts = new WeakMap<FastifyInstance, Set<(reason: ProtocolError) => void>>();
/** The ends of call streams still being written on an app's MCP routes, for its drain to wait for. */
const openFinishing = new WeakMap<FastifyInstance, Set<Promise<void>>>();
/** Each app's shutdown state as `/readyz` reports it: false, or what it says. */
const shutdownState = new WeakMap<FastifyInstance, { detail: string | false }>();

export async function buildHttpApp(server: HttpDeps, http: HttpOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: http.limits.maxBodyBytes,
    forceCloseConnections: false,
    // Our own JSON-RPC 503 answers requests during shutdown (fallback-refusals.ts).
    return503OnClosing: false,
    clientErrorHandler: clientErrorHandler(server),
    // Fastify accepts a hop count at run time; its types only list boolean, string and string[].
    trustProxy: http.trustProxy as boolean | string[],
  });
  const shutdown: { detail: string | false } = { detail: false };
  shutdownState.set(app, shutdown);
  app.addHook('onClose', async () => {
    shutdown.detail = 'shutting down';
  });
  installFallbackRefusals(app, server, http.path);
  // At the root: the probes and the 404s carry the CORS headers too.
  await installCors(app, http);
  // Probes skip auth and Host checks (they are registered outside the MCP routes' scope).
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const r = await readinessReport(server, shutdown.detail);
    return reply.code(r.ready ? 200 : 503).send({ status: r.status, checks: r.checks });
  });
  const streams = new Set<ServerResponse>();
  openStreams.set(app, streams);
  const interrupts = new Set<(reason: ProtocolError) => void>();
  openInterrupts.set(app, interrupts);
  const finishing = new Set<Promise<void>>();
  openFinishing.set(app, finishing);
  // Our own app: only @fastify/cors (above, when on) answers on the MCP routes besides our code.
  const foreignAnswers = http.corsOrigins.length > 0;
  await app.register(mountMcp, {
    server,
    http,
    streams,
    interrupts,
    finishing,
    cors: false,
    foreignAnswers,
    // Fastify was given `http.trustProxy` above: without proxies, `req.ip` is the socket's address.
    socketAddress: http.trustProxy === false,
  });
  return app;
}

export async function startHttp(server: HttpDeps, http: HttpOptions): Promise<HttpHandle> {
  const app = await buildHttpApp(server, http);
  await app.listen({ host: http.host, port: http.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : http.port;
  const host = http.host.includes(':') ? `[${http.host}]` : http.host;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => {
    resolveClosed = r;
  });
  return {
    app,
    port,
    url: `http://${host}:${port}${http.path}`,
    closed,
    streamCount: () => openStreams.get(app)?.size ?? 0,
    async announceDrain(delayMs) {
      const state = shutdownState.get(app);
      if (state && state.detail === false) {
        state.detail = `draining: still serving, stops accepting connections in ${delayMs} ms`;
      }
      await new Promise((r) => setTimeout(r, delayMs));
    },
    async close(timeoutMs) {
      // Stop accepting; wait for in-flight calls (bounded), then end what is left (SSE streams).
      const closing = app.close();
      await drain(
        server,
        openStreams.get(app) ?? new Set(),
        Date.now() + timeoutMs,
        openInterrupts.get(app),
        openFinishing.get(app),
      );
      app.server.closeAllConnections();
      await closing;
      resolveClosed();
    },
  };
}
