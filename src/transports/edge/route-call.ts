/**
 * One request to a plugin's HTTP route (`app.httpRoute`), whichever transport received it:
 * the Fastify routes (plugin-routes.ts) and the fetch handler (src/transports/fetch/) both
 * hand it over as plain facts and send what comes back. In order: auth (unless the route says
 * `auth: false`: the application's `identify` first where the host was given one, then
 * `MCP_AUTH`, its failures counted per address, counted-auth.ts), one token of the
 * per-client rate limit, the body (bytes as received, parsed
 * for JSON with the MCP routes' prototype-poisoning guard); then the handler in a SERVER span
 * `<METHOD> <route>`, its return shaped into a status, headers and body, and one log line. A
 * refusal comes back as the ProtocolError for the transport's own `refuse`. The transport
 * checks Host, Origin and a declared Content-Length before (they need no route).
 */
import type { ProtocolError } from '../../base/errors.ts';
import type { HttpRouteRequest, HttpRouteResponse, PluginHttpRoute } from '../../base/http-route.ts';
import { Refusal } from '../../base/refusals.ts';
import type { Identity } from '../../base/types.ts';
import { scanJson } from '../../protocol/json-limits.ts';
import { rateLimitError } from '../../ratelimit/errors.ts';
import { clientKey } from '../../ratelimit/limiter.ts';
import { routeLogLine } from '../../telemetry/logger.ts';
import { NOOP_ROUTE_SPAN } from '../../telemetry/route-span.ts';
import type { HttpDeps } from '../deps.ts';
import { authenticateCounted } from './counted-auth.ts';
import { authRefusal, isJsonContentType } from './rules.ts';

/** What a route call takes of the server. */
export type RouteDeps = Pick<HttpDeps, 'auth' | 'limiter' | 'logger' | 'telemetry'>;

/** A request to a route, as the transport received it. */
export interface RouteArrival {
  readonly method: string;
  /** The path and query as received. */
  readonly url: string;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string | readonly string[]>>;
  /** Lower-case names, as Node delivers them (auth and the span's parent read them). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly address: string | undefined;
  readonly port: number | undefined;
  readonly httpVersion: string | undefined;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /** The body's bytes (empty without one); undefined once it passes `maxBodyBytes`. */
  readBody(): Promise<Uint8Array | undefined>;
  readonly maxBodyBytes: number;
  /** When the request arrived (performance.now()), for the log line's duration. */
  readonly started: number;
  /**
   * The application's own word on who the caller is (the `identify` option of the Fastify
   * plugin and of the fetch handler), asked before `MCP_AUTH`: an identity is taken as it is,
   * undefined leaves the caller to `MCP_AUTH`, and what it throws is refused as auth failures are.
   */
  readonly identify?: (() => Identity | undefined | Promise<Identity | undefined>) | undefined;
}

/** The handler's answer, shaped for sending. */
export interface RouteAnswer {
  readonly refusal?: undefined;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Undefined: no body. */
  readonly body: string | Uint8Array | undefined;
}

/** What the transport sends: a refusal (for its `refuse`, with the caller if known), or the answer. */
export type RouteOutcome =
  | { readonly refusal: ProtocolError; readonly identity: Identity | undefined }
  | RouteAnswer;

const INTERNAL_ERROR: RouteAnswer = Object.freeze({
  status: 500,
  headers: { 'content-type': 'application/json' },
  body: '{"error":"internal error"}',
});

/** JSON.parse with the MCP routes' prototype-poisoning guard (a `__proto__` key is refused). */
function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (text.includes('__proto__') || text.includes('constructor')) {
    const problem = scanJson(value, Number.POSITIVE_INFINITY, true);
    if (problem?.kind === 'poison') throw new SyntaxError(`the key "${problem.key}" is not allowed`);
  }
  return value;
}

/** The keys a route's answer may have (HttpRouteResponse). */
const ANSWER_KEYS = new Set(['status', 'headers', 'body']);

/**
 * What the handler returned, as a status, headers and body; throws a TypeError, naming what it
 * got, on a shape it cannot send: Fastify's habit `return { hook: 'ok' }` (a body without
 * `body`) would otherwise be read as "no body" and answered 204, and a fetch `Response` or a
 * Map has no keys of its own at all.
 */
function shape(returned: unknown): RouteAnswer {
  const out = returned as HttpRouteResponse | null | undefined;
  if (out === undefined || out === null) return { status: 204, headers: {}, body: undefined };
  const proto = typeof out === 'object' ? (Object.getPrototypeOf(out) as unknown) : undefined;
  if (typeof out !== 'object' || (proto !== Object.prototype && proto !== null)) {
    const what =
      typeof out === 'object' ? `a ${(out as object).constructor?.name ?? 'object'}` : `a ${typeof out}`;
    throw new TypeError(
      `the handler returned ${what}; an HTTP route handler returns a plain { status, headers, body } or nothing`,
    );
  }
  const stray = Object.keys(out).filter((key) => !ANSWER_KEYS.has(key));
  if (stray.length > 0) {
    throw new TypeError(
      `the handler returned an object with ${stray.map((k) => `"${k}"`).join(', ')}; an HTTP route handler returns { status, headers, body } (to send JSON, put it in body: return { body: { ... } })`,
    );
  }
  if (out.status !== undefined && !(Number.isInteger(out.status) && out.status >= 200 && out.status <= 599)) {
    throw new TypeError(
      `the handler returned status ${String(out.status)}; a status is an integer from 200 to 599`,
    );
  }
  const { status, headers, body } = out;
  const sent: Record<string, string> = { ...(headers ?? {}) };
  const typed = Object.keys(sent).some((name) => name.toLowerCase() === 'content-type');
  const code = status ?? (body === undefined ? 204 : 200);
  if (body === undefined) return { status: code, headers: sent, body: undefined };
  if (typeof body === 'string') {
    if (!typed) sent['content-type'] = 'text/plain; charset=utf-8';
    return { status: code, headers: sent, body };
  }
  if (body instanceof Uint8Array) {
    if (!typed) sent['content-type'] = 'application/octet-stream';
    return { status: code, headers: sent, body };
  }
  const json = JSON.stringify(body);
  if (!typed) sent['content-type'] = 'application/json; charset=utf-8';
  return { status: code, headers: sent, body: json };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function plainHeaders(raw: RouteArrival['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    const v = single(value);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

/** A route that answers `method` on `path`, with its `:name` segments' values; undefined: none. */
export function matchRoute(
  routes: readonly PluginHttpRoute[],
  method: string,
  path: string,
): { route: PluginHttpRoute; params: Record<string, string> } | undefined {
  const asked = path.split('/');
  for (const route of routes) {
    if (route.method !== method) continue;
    const declared = route.url.split('/');
    if (declared.length !== asked.length) continue;
    const params: Record<string, string> = {};
    const matches = declared.every((segment, i) => {
      const value = asked[i] as string;
      if (!segment.startsWith(':')) return segment === value;
      if (value === '') return false;
      try {
        params[segment.slice(1)] = decodeURIComponent(value);
      } catch {
        return false;
      }
      return true;
    });
    if (matches) return { route, params };
  }
  return undefined;
}

/**
 * @example
 * const outcome = await callRoute(deps, route, arrival);
 * if (outcome.refusal) return refuse(outcome.refusal);
 */
export async function callRoute(
  deps: RouteDeps,
  route: PluginHttpRoute,
  arrival: RouteArrival,
): Promise<RouteOutcome> {
  let identity: Identity | undefined;
  if (route.auth) {
    try {
      identity = await arrival.identify?.();
    } catch (err) {
      return { refusal: authRefusal(err, deps.logger), identity };
    }
  }
  if (route.auth && identity === undefined && deps.auth) {
    const outcome = await authenticateCounted(deps, arrival.headers, arrival.address);
    if (outcome.refusal) return { refusal: outcome.refusal, identity };
    identity = outcome.identity;
  }
  const limiter = deps.limiter;
  if (limiter && limiter.burst > 0) {
    const decision = await limiter.consume(clientKey(identity, arrival.address), 1);
    if (!decision.allowed) return { refusal: rateLimitError(decision), identity };
  }
  const rawBody = await arrival.readBody();
  if (rawBody === undefined) return { refusal: Refusal.bodyTooLarge(arrival.maxBodyBytes), identity };
  let body: unknown;
  if (rawBody.length > 0) {
    const text = new TextDecoder().decode(rawBody);
    try {
      body = isJsonContentType(single(arrival.headers['content-type'])) ? parseJson(text) : text;
    } catch (err) {
      return { refusal: Refusal.bodyParseError((err as Error).message), identity };
    }
  }
  const request: HttpRouteRequest = Object.freeze({
    method: arrival.method as HttpRouteRequest['method'],
    url: arrival.url,
    path: arrival.path,
    params: { ...arrival.params },
    query: { ...arrival.query },
    headers: plainHeaders(arrival.headers),
    body,
    rawBody,
    identity,
    signal: arrival.signal,
  });
  const telemetry = deps.telemetry;
  const span = (telemetry.startRouteSpan?.bind(telemetry) ?? (() => NOOP_ROUTE_SPAN))({
    httpMethod: arrival.method,
    route: route.url,
    path: arrival.path,
    plugin: route.plugin,
    headers: arrival.headers,
    address: arrival.address,
    port: arrival.port,
    httpVersion: arrival.httpVersion,
    clientId: identity?.clientId,
  });
  let outcome: RouteAnswer;
  let error: string | undefined;
  try {
    outcome = shape(await span.run(() => route.handler(request)));
  } catch (err) {
    error = err instanceof Error ? err.name : 'Error';
    deps.logger.error(
      { err, plugin: route.plugin, route: `${route.method} ${route.url}` },
      `plugin "${route.plugin}": HTTP route ${route.method} ${route.url} failed`,
    );
    outcome = INTERNAL_ERROR;
  }
  const status = outcome.status;
  span.end(status, error);
  routeLogLine(deps.logger, {
    httpMethod: arrival.method,
    route: route.url,
    plugin: route.plugin,
    status,
    durationMs: performance.now() - arrival.started,
    clientId: identity?.clientId,
    trace: span.logFields,
  });
  return outcome;
}
