/**
 * A plugin's own HTTP route (`app.httpRoute(...)`, docs/plugins.md "HTTP routes"): a method,
 * a path, whether it sits behind the server's auth, and a handler that takes a plain request
 * and returns a plain response, so a plugin depends on no HTTP framework. Whichever HTTP
 * transport runs (the standalone server, the Fastify plugin) serves it. Types only.
 */
import type { Identity } from './types.ts';

export const HTTP_ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export type HttpRouteMethod = (typeof HTTP_ROUTE_METHODS)[number];

/** What a route's handler is given of the request. */
export interface HttpRouteRequest {
  readonly method: HttpRouteMethod;
  /** The path and query as received (`/hooks/github?x=1`). */
  readonly url: string;
  /** The path alone. */
  readonly path: string;
  /** The values of the route's `:name` segments. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string | readonly string[]>>;
  /** Lower-case names; a repeated header's values joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON for `application/json`, text for any other type; undefined without a body. */
  readonly body: unknown;
  /** The body's bytes as received (empty without one): what a webhook signature is computed over. */
  readonly rawBody: Uint8Array;
  /** The caller, when the route sits behind auth and auth is on; undefined otherwise. */
  readonly identity: Identity | undefined;
  /** Aborted when the client goes away before the answer is sent. */
  readonly signal: AbortSignal;
}

/**
 * What a handler returns: `status` (default 200, or 204 without a body), `headers`, and a
 * `body`: a string (text/plain unless `content-type` says otherwise), bytes
 * (application/octet-stream), or any other value (sent as JSON). Nothing at all is a 204.
 */
export interface HttpRouteResponse {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

/** What a handler may return: a response, or nothing (204). */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler without a return statement answers 204
export type HttpRouteReturn = HttpRouteResponse | undefined | void;

export type HttpRouteHandler = (req: HttpRouteRequest) => HttpRouteReturn | Promise<HttpRouteReturn>;

/** What `app.httpRoute` takes. */
export interface HttpRoute {
  readonly method: HttpRouteMethod;
  /** A path starting with `/`; `:name` segments are parameters (`/hooks/:source`). */
  readonly url: string;
  /** Behind the server's API-key or OAuth auth (as the MCP endpoint is); `false` for a public route. Default true. */
  readonly auth?: boolean;
  readonly handler: HttpRouteHandler;
}

/** A route as the server holds it: whose it is, auth resolved. */
export interface PluginHttpRoute extends HttpRoute {
  readonly plugin: string;
  readonly auth: boolean;
}
