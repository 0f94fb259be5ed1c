/**
 * `@mcp-toolkit/server/fetch`: the MCP endpoint as a fetch handler,
 * `(request: Request) => Promise<Response>`, for Hono, Bun, Deno, workerd or any host of the
 * WHATWG fetch API (docs/embedding.md): both wires, the 2025 one's sessions in the server's store. The
 * handler's options default to what the server's settings say (the HTTP transport's path,
 * limits, Host and Origin checks). It serves the plugins' HTTP routes too, under the standalone
 * server's clash rule: a route on one of the paths the HTTP transport answers itself stops the
 * handler's creation, naming both. A wrong argument is a TypeError at creation, naming what
 * was expected.
 */

import type { RunningServer } from './assembly/serve.ts';
import { httpOptions } from './assembly/transport-options.ts';
import type { Settings } from './config/settings.ts';
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

const EXPECTED_SERVER =
  'createFetchHandler(server): expected the handle createServer() returns (or its .server)';

/** What a value is, for a TypeError's message. */
function described(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object with keys ${Object.keys(value).join(', ') || '(none)'}`;
  return `${typeof value} ${String(value)}`;
}

/** The server behind `given`: the handle createServer() returns, or the server it holds. */
function serverOf(given: unknown): FetchServer {
  if (typeof given !== 'object' || given === null)
    throw new TypeError(`${EXPECTED_SERVER}, got ${described(given)}`);
  const inner = (given as Partial<RunningServer>).server;
  const server = (inner ?? given) as Partial<FetchServer>;
  if (
    typeof server.dispatcher?.handle !== 'function' ||
    typeof server.settings !== 'object' ||
    server.sessions === undefined ||
    server.hub === undefined
  ) {
    throw new TypeError(`${EXPECTED_SERVER}, got ${described(given)}`);
  }
  return server as FetchServer;
}

/** Each option's check: undefined when the value is fine, else what it should be. */
const OPTION_CHECKS: Readonly<Record<keyof FetchHandlerOptions, (v: unknown) => string | undefined>> = {
  path: (v) => (typeof v === 'string' && v.startsWith('/') ? undefined : "a path starting with '/'"),
  maxBodyBytes: positiveInteger,
  sessions: (v) => (v === 'stateful' || v === 'stateless' ? undefined : "'stateful' or 'stateless'"),
  maxStreamsPerSession: positiveInteger,
  eventRetention: positiveInteger,
  sseKeepAliveMs: positiveInteger,
  sseRetryMs: nonNegativeInteger,
  sseStandaloneGraceMs: nonNegativeInteger,
  trustProxy: boolean,
  checkHost: boolean,
  anyOrigin: boolean,
  allowedHosts: strings,
  allowedOrigins: strings,
  identify: (v) => (typeof v === 'function' ? undefined : 'a function (request) => identity or undefined'),
};

function positiveInteger(v: unknown): string | undefined {
  return Number.isInteger(v) && (v as number) > 0 ? undefined : 'a positive integer';
}
function nonNegativeInteger(v: unknown): string | undefined {
  return Number.isInteger(v) && (v as number) >= 0 ? undefined : 'an integer of 0 or more';
}
function boolean(v: unknown): string | undefined {
  return typeof v === 'boolean' ? undefined : 'true or false';
}
function strings(v: unknown): string | undefined {
  return Array.isArray(v) && v.every((s) => typeof s === 'string') ? undefined : 'an array of strings';
}

function checkOverrides(overrides: unknown): Partial<FetchHandlerOptions> {
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) {
    throw new TypeError(
      `createFetchHandler(server, options): expected an options object, got ${described(overrides)}`,
    );
  }
  for (const [name, value] of Object.entries(overrides)) {
    const check = OPTION_CHECKS[name as keyof FetchHandlerOptions];
    if (!check) {
      throw new TypeError(
        `createFetchHandler: unknown option "${name}"; the options are ${Object.keys(OPTION_CHECKS).join(', ')}`,
      );
    }
    const expected = value === undefined ? undefined : check(value);
    if (expected)
      throw new TypeError(
        `createFetchHandler: option "${name}" must be ${expected}, got ${described(value)}`,
      );
  }
  return overrides as Partial<FetchHandlerOptions>;
}

/**
 * Throws a TypeError for a wrong argument, and a ToolkitError when a plugin's HTTP route takes
 * one of the transport's own paths.
 *
 * @example
 * const running = await createServer({ plugins, transport: 'none' });
 * const handle = createFetchHandler(running, { path: '/mcp' });
 * app.all('*', (c) => handle(c.req.raw)); // Hono: the endpoint and the plugins' routes
 */
export function createFetchHandler(
  server: RunningServer | FetchServer,
  overrides: Partial<FetchHandlerOptions> = {},
): FetchHandler {
  const target = serverOf(server);
  const given = checkOverrides(overrides);
  const defined = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  const options = { ...fetchHandlerOptions(target.settings), ...defined } as FetchHandlerOptions;
  // The paths the standalone server reserves, at this handler's path: a plugin's route runs
  // the same under every transport, or fails the same way.
  checkRouteClashes(target.routes ?? [], { ...httpOptions(target.settings), path: options.path });
  return fetchHandler(target, options);
}
