/**
 * The plugins' own HTTP routes (`app.httpRoute`), served in a scope of their own beside the
 * MCP routes, by the standalone server and by the Fastify plugin alike (mount.ts). Each
 * request passes the MCP endpoint's Host and Origin checks, its auth (unless the route says
 * `auth: false`) and the per-client rate limit, every refusal through `refuse()`; then the
 * handler runs in a SERVER span `<METHOD> <route>`, with a plain request (no Fastify type
 * reaches the plugin), and one log line is written. A route on a path the transport serves
 * itself stops start-up, naming both (`checkRouteClashes`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { serverCardUrl } from '../../base/card-check.ts';
import { InternalCode, ToolkitError } from '../../base/errors.ts';
import type { HttpRouteRequest, HttpRouteResponse, PluginHttpRoute } from '../../base/http-route.ts';
import { RESOURCE_METADATA_WELL_KNOWN, resourceMetadataPath } from '../../base/oauth-urls.ts';
import { Refusal } from '../../base/refusals.ts';
import type { Identity } from '../../base/types.ts';
import { scanJson } from '../../protocol/json-limits.ts';
import { rateLimitError } from '../../ratelimit/errors.ts';
import { clientKey } from '../../ratelimit/limiter.ts';
import { routeLogLine } from '../../telemetry/logger.ts';
import { NOOP_ROUTE_SPAN } from '../../telemetry/route-span.ts';
import type { HttpDeps } from '../deps.ts';
import { createHostGuard } from './guards.ts';
import type { HttpOptions } from './options.ts';
import { refuse } from './refuse.ts';
import { authRefusal, isJsonContentType } from './rules.ts';

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
}

const EMPTY = new Uint8Array(0);

/** JSON.parse with the MCP routes' prototype-poisoning guard (a `__proto__` key is refused). */
function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (text.includes('__proto__') || text.includes('constructor')) {
    const problem = scanJson(value, Number.POSITIVE_INFINITY, true);
    if (problem?.kind === 'poison') throw new SyntaxError(`the key "${problem.key}" is not allowed`);
  }
  return value;
}

function plainHeaders(raw: FastifyRequest['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Sends what the handler returned; the status sent. */
function sendResponse(reply: FastifyReply, returned: unknown): number {
  const out = returned as HttpRouteResponse | null | undefined;
  if (out === undefined || out === null) {
    reply.code(204).send();
    return 204;
  }
  if (typeof out !== 'object')
    throw new TypeError('an HTTP route handler returns { status, headers, body } or nothing');
  const { status, headers, body } = out;
  for (const [name, value] of Object.entries(headers ?? {})) reply.header(name, value);
  const code = status ?? (body === undefined ? 204 : 200);
  reply.code(code);
  const typed = reply.hasHeader('content-type');
  if (body === undefined) reply.send();
  else if (typeof body === 'string') {
    if (!typed) reply.header('content-type', 'text/plain; charset=utf-8');
    reply.send(body);
  } else if (body instanceof Uint8Array) {
    if (!typed) reply.header('content-type', 'application/octet-stream');
    reply.send(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  } else {
    if (!typed) reply.header('content-type', 'application/json; charset=utf-8');
    reply.send(JSON.stringify(body));
  }
  return code;
}

async function serveRoute(
  deps: HttpDeps,
  route: PluginHttpRoute,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  let identity: Identity | undefined;
  if (route.auth && deps.auth) {
    try {
      identity = await deps.auth.authenticate({ headers: req.headers });
    } catch (err) {
      return refuse(deps, req, reply, authRefusal(err, deps.logger), null);
    }
    req.mcpIdentity = identity;
  }
  const limiter = deps.limiter;
  if (limiter && limiter.burst > 0) {
    const decision = await limiter.consume(clientKey(identity, req.ip), 1);
    if (!decision.allowed) return refuse(deps, req, reply, rateLimitError(decision), null);
  }
  const rawBody = req.body instanceof Uint8Array ? req.body : EMPTY;
  let body: unknown;
  if (rawBody.length > 0) {
    const text = Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8');
    try {
      body = isJsonContentType(req.headers['content-type']) ? parseJson(text) : text;
    } catch (err) {
      return refuse(deps, req, reply, Refusal.bodyParseError((err as Error).message), null);
    }
  }
  const path = req.url.split('?')[0] ?? req.url;
  const aborted = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) aborted.abort(new Error('the client went away'));
  });
  const request: HttpRouteRequest = Object.freeze({
    method: req.method as HttpRouteRequest['method'],
    url: req.url,
    path,
    params: { ...(req.params as Record<string, string>) },
    query: { ...(req.query as Record<string, string | string[]>) },
    headers: plainHeaders(req.headers),
    body,
    rawBody,
    identity,
    signal: aborted.signal,
  });
  const telemetry = deps.telemetry;
  const span = (telemetry.startRouteSpan?.bind(telemetry) ?? (() => NOOP_ROUTE_SPAN))({
    httpMethod: req.method,
    route: route.url,
    path,
    plugin: route.plugin,
    headers: req.headers,
    address: req.ip,
    port: req.socket.remotePort,
    httpVersion: req.raw.httpVersion,
    clientId: identity?.clientId,
  });
  let status: number;
  let error: string | undefined;
  try {
    status = sendResponse(reply, await span.run(() => route.handler(request)));
  } catch (err) {
    error = err instanceof Error ? err.name : 'Error';
    deps.logger.error(
      { err, plugin: route.plugin, route: `${route.method} ${route.url}` },
      `plugin "${route.plugin}": HTTP route ${route.method} ${route.url} failed`,
    );
    status = 500;
    if (!reply.sent) {
      reply.removeHeader('content-type');
      reply.code(500).header('content-type', 'application/json').send('{"error":"internal error"}');
    }
  }
  span.end(status, error);
  routeLogLine(deps.logger, {
    httpMethod: req.method,
    route: route.url,
    plugin: route.plugin,
    status,
    durationMs: reply.elapsedTime,
    clientId: identity?.clientId,
    trace: span.logFields,
  });
  return reply;
}

/**
 * Registers the routes in `app`'s scope; register it (`app.register(pluginRoutes, options)`)
 * so that its hooks and body parser stay there.
 */
export async function pluginRoutes(app: FastifyInstance, options: PluginRoutesOptions): Promise<void> {
  const { server: deps, http, routes } = options;
  if (routes.length === 0) return;
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
  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.url,
      bodyLimit: maxBody,
      handler: (req, reply) => serveRoute(deps, route, req, reply),
    });
  }
}
