/**
 * `@mcp-toolkit/server/fetch`: the 2026-07-28 stateless wire as a fetch handler,
 * `(request: Request) => Promise<Response>`, for Hono, Bun, Deno, Next.js route handlers or
 * Cloudflare-style workers (docs/embedding.md). The handler's options default to what the
 * server's settings say (the HTTP transport's path, limits, Host and Origin checks). It serves
 * the plugins' HTTP routes too, under the standalone server's clash rule: a route on one of the
 * paths the HTTP transport answers itself stops the handler's creation, naming both.
 */
import type { Settings } from './config/settings.ts';
import { httpOptions } from './transport-options.ts';
import {
  type FetchHandler,
  fetchHandler,
  type FetchServer as HandlerServer,
} from './transports/fetch/handler.ts';
import {
  type FetchHandlerOptions,
  fetchHandlerOptions as fromHttpOptions,
} from './transports/fetch/options.ts';
import { checkRouteClashes } from './transports/http/plugin-routes.ts';

export type { FetchClient, FetchHandler } from './transports/fetch/handler.ts';
export type { FetchHandlerOptions } from './transports/fetch/options.ts';

/** What the handler takes of a server: `createServer`'s handle has it all. */
export interface FetchServer extends HandlerServer {
  /** The options' defaults come from here. */
  readonly settings: Settings;
}

/** The options `createFetchHandler` starts from for these settings. */
export function fetchHandlerOptions(settings: Settings): FetchHandlerOptions {
  return fromHttpOptions(httpOptions(settings));
}

/**
 * Throws a ToolkitError when a plugin's HTTP route takes one of the transport's own paths.
 *
 * @example
 * const handle = createFetchHandler(server, { path: '/mcp' });
 * app.all('*', (c) => handle(c.req.raw)); // Hono: the endpoint and the plugins' routes
 */
export function createFetchHandler(
  server: FetchServer,
  overrides: Partial<FetchHandlerOptions> = {},
): FetchHandler {
  const options = { ...fetchHandlerOptions(server.settings), ...overrides };
  // The paths the standalone server reserves, at this handler's path: a plugin's route runs
  // the same under every transport, or fails the same way.
  checkRouteClashes(server.routes ?? [], { ...httpOptions(server.settings), path: options.path });
  return fetchHandler(server, options);
}
