/**
 * The HTTP transport's routes, mounted on a Fastify instance: the MCP endpoint (both wires),
 * the discovery documents and landing page, the OAuth protected resource metadata, and the
 * plugins' own routes (plugin-routes.ts). The
 * standalone server (server.ts) mounts them on a Fastify app of its own; the Fastify plugin
 * (src/fastify.ts) mounts them on the user's app. Both drain the same way: in-flight calls
 * and route handlers finish (bounded), then the SSE streams still open are ended.
 */
import type { ServerResponse } from 'node:http';
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { protectedResourceMetadata } from '../../auth/resource-metadata.ts';
import type { ProtocolError } from '../../base/errors.ts';
import { RESOURCE_METADATA_WELL_KNOWN, resourceMetadataPath } from '../../base/oauth-urls.ts';
import { Refusal } from '../../base/refusals.ts';
import type { HttpDeps } from '../deps.ts';
import { authorizationRoutes } from './authorization-routes.ts';
import { discoveryRoutes, landingOnPath } from './discovery-routes.ts';
import type { HttpOptions } from './options.ts';
import { checkRouteClashes, pluginRoutes } from './plugin-routes.ts';
import { refuse } from './refuse.ts';
import { type McpRoutesOptions, mcpRoutes } from './routes.ts';

export interface MountOptions {
  server: HttpDeps;
  http: HttpOptions;
  /** The SSE responses open on the MCP routes (filled by them; `drain` ends them). */
  streams: Set<ServerResponse>;
  /** How to stop the MCP requests in flight (filled by the routes; `drain` calls them at its deadline). */
  interrupts?: Set<(reason: ProtocolError) => void>;
  /** The ends of call streams still being written (filled by the routes; `drain` waits for them). */
  finishing?: Set<Promise<void>>;
  /** CORS for these routes alone (false where our own app applies it already, at its root). */
  cors: boolean;
  /** True once shutdown has begun: requests to these routes then get a JSON-RPC 503. */
  closing?: () => boolean;
  /**
   * Whether something other than our own code may answer on the MCP routes (an application's
   * hooks, @fastify/cors refusing a preflight): their error answers are then recorded as
   * refusals by an onSend hook (routes.ts). Default true.
   */
  foreignAnswers?: boolean;
  /** The application's own word on who the caller is (the Fastify plugin's `identify`). */
  identify?: McpRoutesOptions['identify'];
  /** The app trusts no proxy (our own app with `trustProxy` off): see McpRoutesOptions. */
  socketAddress?: boolean;
  /** Serve the catalogs at `/.well-known/mcp/catalog.json` and `/.well-known/ai-catalog.json` (default true). */
  catalogs?: boolean;
  /**
   * Fastify's `prefix` the Fastify plugin was registered under: the plugins' own routes go
   * under it, as the endpoint does (whose path carries it already). Not `prefix`: Fastify would
   * apply that to this scope, the endpoint's path included.
   */
  routePrefix?: string;
}

/** The request headers a browser client of the MCP endpoint sends. */
const ALLOWED_HEADERS = [
  'content-type',
  'accept',
  'authorization',
  'x-api-key',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'last-event-id',
];
/** The response headers it reads. */
const EXPOSED_HEADERS = ['mcp-session-id', 'mcp-protocol-version', 'www-authenticate', 'retry-after'];

/** CORS as the MCP endpoint needs it, for a whole app of ours (the standalone server). */
export async function installCors(app: FastifyInstance, http: HttpOptions): Promise<void> {
  if (http.corsOrigins.length === 0) return;
  await app.register(cors, {
    origin: http.corsOrigins.includes('*') ? '*' : [...http.corsOrigins],
    methods: ['GET', 'POST', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
  });
}

/**
 * CORS for this scope's routes alone (a guest in an application's app): an onRequest hook
 * that answers the listed origins' preflights and marks their answers, so the application's
 * own routes, and its own @fastify/cors, are left as they are. Runs before the Host check and
 * auth, since a preflight carries no credentials (Fetch standard, CORS protocol).
 */
export function installScopedCors(app: FastifyInstance, http: HttpOptions): void {
  if (http.corsOrigins.length === 0) return;
  const any = http.corsOrigins.includes('*');
  const origins = new Set(http.corsOrigins);
  const exposed = EXPOSED_HEADERS.join(', ');
  const allowed = ALLOWED_HEADERS.join(', ');
  app.addHook('onRequest', (req, reply, done) => {
    const origin = req.headers.origin;
    if (origin === undefined || !(any || origins.has(origin))) return done();
    reply.header('access-control-allow-origin', any ? '*' : origin);
    if (!any) reply.header('vary', 'Origin');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      reply
        .code(204)
        .header('access-control-allow-methods', 'GET, POST, DELETE')
        .header('access-control-allow-headers', allowed)
        .send();
      return;
    }
    reply.header('access-control-expose-headers', exposed);
    done();
  });
}

/**
 * Registers the transport's routes in `app`'s scope; register it (`app.register(mountMcp,
 * options)`) so that its hooks (Host check, auth, rate limit) stay inside that scope.
 */
export async function mountMcp(app: FastifyInstance, options: MountOptions): Promise<void> {
  const { server, http, closing } = options;
  // A plugin's route on one of the paths served here stops start-up before anything is mounted.
  const routes = server.routes ?? [];
  const prefix = options.routePrefix ?? '';
  checkRouteClashes(
    prefix ? routes.map((route) => ({ ...route, url: `${prefix}${route.url}` })) : routes,
    http,
  );
  if (closing) {
    app.addHook('onRequest', (req, reply, done) => {
      if (!closing()) return done();
      reply.header('connection', 'close');
      refuse(server, req, reply, Refusal.shuttingDown());
    });
  }
  // The application's CORS (its own @fastify/cors, if any) is its own; ours covers our routes.
  if (options.cors) installScopedCors(app, http);
  const metadata = http.resourceMetadata;
  if (metadata) {
    const document = protectedResourceMetadata({
      resource: metadata.resource,
      authorizationServers: metadata.authorizationServers,
      scopesSupported: [...new Set([...metadata.scopes, ...server.toolScopes()])],
    });
    app.get(resourceMetadataPath(http.path), async () => document);
    // Hosted connectors probe the root well-known URL too (RFC 9728 §3.1 allows either); one endpoint, one document.
    if (resourceMetadataPath(http.path) !== RESOURCE_METADATA_WELL_KNOWN)
      app.get(RESOURCE_METADATA_WELL_KNOWN, async () => document);
  }
  await app.register(mcpRoutes, {
    server,
    http,
    streams: options.streams,
    interrupts: options.interrupts,
    finishing: options.finishing,
    identify: options.identify,
    preflight: options.cors,
    landing: landingOnPath(server, http),
    foreignAnswers: options.foreignAnswers ?? true,
    socketAddress: options.socketAddress ?? false,
  });
  await app.register(discoveryRoutes, { server, http, catalogs: options.catalogs ?? true });
  if (server.authorizationServer) {
    await app.register(authorizationRoutes, {
      server,
      http,
      authorizationServer: server.authorizationServer,
    });
  }
  await app.register(pluginRoutes, {
    server,
    http,
    routes,
    interrupts: options.interrupts,
    identify: options.identify,
    preflight: options.cors,
    prefix,
  });
}

/** MCP requests and plugin route handlers running now. */
export function inflight(server: HttpDeps): number {
  return server.dispatcher.inflightCount + (server.routeInflightCount ?? 0);
}

/** The end of a drain kept for answering what is still running, at most (a quarter of it when shorter). */
const CUT_OFF_GRACE_MS = 1_000;
/** The least time given to those answers, however short the drain. */
const CUT_OFF_MIN_MS = 50;

/** Waits until nothing is in flight, or until `until` (a Date.now() value). */
async function settle(server: HttpDeps, until: number): Promise<void> {
  while (inflight(server) > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Waits until every stream end in `finishing` (those added meanwhile too) settles, or until `until`. */
async function settleFinishing(finishing: ReadonlySet<Promise<void>>, until: number): Promise<void> {
  while (finishing.size > 0 && Date.now() < until) {
    let timer: NodeJS.Timeout | undefined;
    const timeUp = new Promise<void>((r) => {
      timer = setTimeout(r, until - Date.now());
    });
    await Promise.race([Promise.allSettled([...finishing]), timeUp]);
    clearTimeout(timer);
  }
}

/**
 * Lets the calls in flight, MCP requests and the plugins' route handlers alike, finish (until
 * `deadline`, a Date.now() value), and the ends of their streams be written (the last event
 * stored), then ends the SSE streams still open on the MCP routes.
 * What still runs shortly before the deadline is stopped through `interrupts` and answered with
 * a 503 (a JSON-RPC error, as the last event of a stream already open), so that no caller is
 * left without an answer when the connections close.
 */
export async function drain(
  server: HttpDeps,
  streams: Set<ServerResponse>,
  deadline: number,
  interrupts?: ReadonlySet<(reason: ProtocolError) => void>,
  finishing?: ReadonlySet<Promise<void>>,
): Promise<void> {
  const grace = Math.min(CUT_OFF_GRACE_MS, Math.max(0, (deadline - Date.now()) / 4));
  await settle(server, deadline - grace);
  const running = inflight(server);
  if (running > 0 && interrupts !== undefined && interrupts.size > 0) {
    server.logger.warn(
      { inflight: running },
      'shutdown: requests still running at the end of the drain are stopped and answered with 503',
    );
    for (const interrupt of interrupts) interrupt(Refusal.cutOffByShutdown());
    await settle(server, Math.max(deadline, Date.now() + CUT_OFF_MIN_MS));
  }
  if (finishing !== undefined)
    await settleFinishing(finishing, Math.max(deadline, Date.now() + CUT_OFF_MIN_MS));
  for (const raw of [...streams]) raw.destroy();
  streams.clear();
}
