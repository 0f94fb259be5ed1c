/**
 * The plugins' own HTTP routes (`app.httpRoute`), served in a scope of their own beside the
 * MCP routes, by the standalone server and by the Fastify plugin alike (mount.ts). Each
 * request passes the MCP endpoint's Host and Origin checks and body limit here, then
 * route-call.ts (shared with the fetch handler): auth (unless the route says `auth: false`;
 * the Fastify plugin's `identify` first),
 * the per-client rate limit, the handler in a SERVER span `<METHOD> <route>` with a plain
 * request (no Fastify type reaches the plugin), and one log line; every refusal goes through
 * `refuse()`. A route on a path the transport serves itself stops start-up, naming both
 * (`checkRouteClashes`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { serverCardUrl } from '../../base/card-check.ts';
import { InternalCode, type ProtocolError, ToolkitError } from '../../base/errors.ts';
import type { PluginHttpRoute } from '../../base/http-route.ts';
import { RESOURCE_METADATA_WELL_KNOWN, resourceMetadataPath } from '../../base/oauth-urls.ts';
import { Refusal } from '../../base/refusals.ts';
import type { Identity } from '../../base/types.ts';
import type { HttpDeps } from '../deps.ts';
import { createHostGuard } from '../edge/guards.ts';
import { callRoute } from '../edge/route-call.ts';
import type { HttpOptions } from './options.ts';
import { refuse } from './refuse.ts';

/** Every path the HTTP transports answer on themselves, with what each one is. */
export function reservedPaths(http: HttpOptions): { path: string; what: string }[] {
  const paths = [
    { path: http.path, what: 'the MCP endpoint' },
    { path: new URL(serverCardUrl(`http://x${http.path}`)).pathname, what: 'the server card' },
    { path: '/.well-known/mcp/catalog.json', what: 'the MCP catalog' },
    { path: '/.well-known/ai-catalog.json', what: 'the AI catalog' },
    { path: '/healthz', what: 'the health probe' },
    { path: '/readyz', what: 'the readiness probe' },
  ];
  if (http.landingPage) paths.push({ path: '/', what: 'the landing page' });
  if (http.resourceMetadata) {
    paths.push({ path: resourceMetadataPath(http.path), what: 'the OAuth protected resource metadata' });
    paths.push({ path: RESOURCE_METADATA_WELL_KNOWN, what: 'the OAuth protected resource metadata' });
  }
  return paths;
}

/** Throws, naming the route, its plugin and the server's path, when a route takes one of the transport's paths. */
export function checkRouteClashes(routes: readonly PluginHttpRoute[], http: HttpOptions): void {
  const reserved = reservedPaths(http);
  for (const route of routes) {
    const taken = reserved.find((r) => r.path === route.url);
    if (taken) {
      throw new ToolkitError(
        InternalCode.DuplicateName,
        `HTTP route ${route.method} ${route.url} of plugin "${route.plugin}" clashes with ${taken.what} (${taken.path}); give the route another url`,
      );
    }
  }
}

export interface PluginRoutesOptions {
  server: HttpDeps;
  http: HttpOptions;
  routes: readonly PluginHttpRoute[];
  /** Where these routes put how to stop the handlers running, for a drain past its deadline. */
  interrupts?: Set<(reason: ProtocolError) => void> | undefined;
  /** The application's own word on who the caller is (the Fastify plugin's `identify`). */
  identify?: ((request: FastifyRequest) => Identity | undefined | Promise<Identity | undefined>) | undefined;
  /**
   * The scope's own CORS answers preflights (installScopedCors, a guest in an application's app):
   * each route's path then gets an OPTIONS route for that hook to run on.
   */
  preflight?: boolean | undefined;
}

/** A handler running now: its request's abort, and its reply (answered by an interrupt if need be). */
interface Running {
  readonly req: FastifyRequest;
  readonly reply: FastifyReply;
  readonly aborted: AbortController;
}

const EMPTY = new Uint8Array(0);

async function serveRoute(
  deps: HttpDeps,
  route: PluginHttpRoute,
  maxBodyBytes: number,
  running: Set<Running>,
  identify: PluginRoutesOptions['identify'],
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const aborted = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) aborted.abort(new Error('the client went away'));
  });
  const entry = { req, reply, aborted };
  running.add(entry);
  let outcome: Awaited<ReturnType<typeof callRoute>>;
  try {
    outcome = await callRoute(deps, route, {
      method: req.method,
      url: req.url,
      path: req.url.split('?')[0] ?? req.url,
      params: req.params as Record<string, string>,
      query: req.query as Record<string, string | string[]>,
      headers: req.headers,
      address: req.ip,
      port: req.socket.remotePort,
      httpVersion: req.raw.httpVersion,
      signal: aborted.signal,
      // Read already, within the limit, by the content parser below.
      readBody: async () => (req.body instanceof Uint8Array ? req.body : EMPTY),
      maxBodyBytes,
      started: performance.now() - reply.elapsedTime,
      identify: identify && (() => identify(req)),
    });
  } finally {
    running.delete(entry);
  }
  // Answered already: the drain stopped this handler (below).
  if (reply.sent) return reply;
  if (outcome.refusal) {
    req.mcpIdentity = outcome.identity;
    return refuse(deps, req, reply, outcome.refusal, null);
  }
  for (const [name, value] of Object.entries(outcome.headers)) reply.header(name, value);
  reply.code(outcome.status);
  const { body } = outcome;
  if (body === undefined) return reply.send();
  return reply.send(
    typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
  );
}

/**
 * Registers the routes in `app`'s scope; register it (`app.register(pluginRoutes, options)`)
 * so that its hooks and body parser stay there.
 */
export async function pluginRoutes(app: FastifyInstance, options: PluginRoutesOptions): Promise<void> {
  const { server: deps, http, routes } = options;
  if (routes.length === 0) return;
  const running = new Set<Running>();
  options.interrupts?.add((reason) => {
    for (const { req, reply, aborted } of running) {
      aborted.abort(reason);
      if (!reply.sent) refuse(deps, req, reply, reason, null);
    }
  });
  const guard = createHostGuard(http);
  const maxBody = http.limits.maxBodyBytes;
  app.decorateRequest('mcpIdentity', undefined);
  app.addHook('onRequest', async (req, reply) => {
    if (!guard.hostAllowed(req.headers.host)) {
      return refuse(deps, req, reply, Refusal.hostNotAllowed(req.headers.host), null);
    }
    if (!guard.originAllowed(req.headers.origin)) {
      return refuse(deps, req, reply, Refusal.originNotAllowed(req.headers.origin), null);
    }
    if (Number(req.headers['content-length'] ?? 0) > maxBody) {
      return refuse(deps, req, reply, Refusal.bodyTooLarge(maxBody), null);
    }
  });
  // Every body is read as bytes: the handler gets them as they came (a webhook's signature
  // covers them) and, for JSON, parsed.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxBody }, (_req, body, done) =>
    done(null, body),
  );
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.statusCode === 413) {
      return refuse(deps, req, reply, Refusal.bodyTooLarge(maxBody), null);
    }
    deps.logger.error({ err }, 'http error');
    return refuse(deps, req, reply, Refusal.internal(), null);
  });
  if (options.preflight && http.corsOrigins.length > 0) {
    // A listed origin's preflight is answered by the CORS hook before this handler; what reaches
    // it (no CORS request, or an origin not listed) gets no CORS headers, so a browser refuses.
    for (const url of new Set(routes.map((route) => route.url))) {
      app.route({ method: 'OPTIONS', url, handler: (_req, reply) => reply.code(204).send() });
    }
  }
  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.url,
      bodyLimit: maxBody,
      handler: (req, reply) => serveRoute(deps, route, maxBody, running, options.identify, req, reply),
    });
  }
}
