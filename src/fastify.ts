/**
 * `@mcp-toolkit/server/fastify`: the server as a Fastify plugin, served by the application's
 * own Fastify instance. `await app.register(mcpToolkit, { path: '/mcp', plugins, settings })`
 * mounts the MCP endpoint (the stateful 2025 wire and the stateless 2026 wire) and the server
 * card, under Fastify's `prefix` when one is given, the routes the standalone server mounts
 * (src/transports/http/mount.ts) but the landing page and the root-level catalogs, which are
 * opt-in (`landingPage`, `discovery`; a path the application has already stops registration
 * with a ToolkitError naming it and the option). Its CORS covers its own routes only, beside
 * the application's own @fastify/cors; `identify` hands the application's own authentication
 * to it. All in a scope of their own: the application's onRequest hooks
 * run before them, its logger (`app.log`) writes their lines, its OpenTelemetry
 * instrumentation holds their spans, and its own routes are untouched by their hooks (Host
 * check, auth, rate limit). `app.close()` drains: the MCP calls and the plugins' route
 * handlers in flight finish (within MCP_SHUTDOWN_TIMEOUT_MS), the SSE streams end, then the
 * plugins' onClose hooks run. No health route is forced on the application: it decorates the
 * app with `app.mcpToolkit.readiness()`, the standalone server's `/readyz` report, for the
 * application's own probe to include.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { type Logger, pino } from 'pino';
import { assemble, liveCounts, type PluginRef } from './assembly/assemble.ts';
import { httpOptions } from './assembly/transport-options.ts';
import { InternalCode, type ProtocolError, ToolkitError } from './base/errors.ts';
import type { Identity } from './base/types.ts';
import type { SettingsInput } from './config/settings.ts';
import { drain, mountMcp } from './transports/http/mount.ts';
import { reservedPaths } from './transports/http/plugin-routes.ts';
import { type ReadinessReport, readinessReport } from './transports/http/probes.ts';

export type { ReadinessReport } from './transports/http/probes.ts';

/** What the plugin adds to the application: `app.mcpToolkit`. */
export interface McpToolkitHandle {
  /**
   * The checks the standalone server's `/readyz` reports (the rate-limit store, Redis, the
   * OAuth issuer's keys, each plugin's `dependency` doctor checks; `shutdown` once
   * `app.close()` has begun), for the application's own readiness probe.
   */
  readiness(): Promise<ReadinessReport>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Set by `app.register(mcpToolkit)`. */
    mcpToolkit: McpToolkitHandle;
  }
}

export interface McpToolkitOptions {
  /** Path of the MCP endpoint (MCP_HTTP_PATH); the card is at `<path>/server-card`. Default `/mcp`. */
  path?: string;
  /** Fastify's own: every route of ours is under it (`{ prefix: '/v1' }` serves `/v1/mcp`). */
  prefix?: string;
  /** Serve the HTML landing page at `/` (and to browsers at the endpoint). Default false: `/` is the application's. */
  landingPage?: boolean;
  /** Serve the catalogs at `/.well-known/mcp/catalog.json` and `/.well-known/ai-catalog.json`. Default false. */
  discovery?: boolean;
  /**
   * The application's own word on who the caller is, once its auth has run (its onRequest
   * hooks run before ours): an identity with its scopes, which per-tool scopes, visibility,
   * rate limits, logs and spans then use; undefined leaves it to MCP_AUTH (none: anonymous).
   * A ProtocolError thrown here is the answer (a 401, say); anything else is logged and 503.
   */
  identify?: (request: FastifyRequest) => Identity | undefined | Promise<Identity | undefined>;
  /** The plugins: `definePlugin(...)` results, or names and module paths as MCP_PLUGINS takes them. Default: MCP_PLUGINS. */
  plugins?: readonly PluginRef[];
  /** Settings by MCP_* name (`{ MCP_AUTH: 'api_key', MCP_API_KEYS: ['ci:a-long-random-key'] }`); no environment is read unless `env` is given. */
  settings?: SettingsInput;
  /** An environment to read settings from, below `settings` (pass process.env to configure it as the CLI is). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Default: the application's logger (`app.log`). */
  logger?: Logger;
}

/** `app.log`, when it is a logger that can say its level (Fastify's own `logger: false` cannot: then silent). */
function appLogger(app: FastifyInstance): Logger {
  const log = app.log as unknown as Partial<Logger>;
  return typeof log.isLevelEnabled === 'function' && typeof log.child === 'function'
    ? (log as Logger)
    : pino({ level: 'silent' });
}

/** The option, or setting, behind each path we would take: named when the application has it already. */
const SETTING_OF: Readonly<Record<string, string>> = {
  'the MCP endpoint': 'path (MCP_HTTP_PATH) or prefix',
  'the server card': 'path (MCP_HTTP_PATH) or prefix',
  'the landing page': 'landingPage',
  'the MCP catalog': 'discovery',
  'the AI catalog': 'discovery',
  'the OAuth protected resource metadata': 'path (MCP_HTTP_PATH) or prefix',
};

/** Throws, naming the route and the option, when the application already answers a path we would take. */
function checkAppRoutes(
  app: FastifyInstance,
  http: ReturnType<typeof httpOptions>,
  discovery: boolean,
): void {
  for (const { path, what } of reservedPaths(http)) {
    if (path === '/healthz' || path === '/readyz') continue; // never served by the plugin
    if (!discovery && (what === 'the MCP catalog' || what === 'the AI catalog')) continue;
    if (app.hasRoute({ method: 'GET', url: path }) || app.hasRoute({ method: 'POST', url: path })) {
      throw new ToolkitError(
        InternalCode.DuplicateName,
        `mcp-toolkit: the application already has a route at ${path}, where the plugin would serve ${what}; ` +
          `change the plugin's ${SETTING_OF[what] ?? 'path'} or the application's route`,
      );
    }
  }
}

const plugin: FastifyPluginAsync<McpToolkitOptions> = async (app, options) => {
  // Registered without a scope of its own (below), so Fastify does not apply `prefix` itself:
  // the endpoint's path carries it, as do the card and the resource metadata derived from it.
  const prefix = (options.prefix ?? '').replace(/\/$/, '');
  const path = options.path || options.prefix ? `${prefix}${options.path ?? '/mcp'}` : undefined;
  const assembled = await assemble({
    plugins: options.plugins,
    settings: { ...(options.settings ?? {}), ...(path ? { MCP_HTTP_PATH: path } : {}) },
    env: options.env,
    logger: options.logger ?? appLogger(app),
    transport: 'none',
  });
  const { server, settings, telemetry } = assembled;
  const streams = new Set<ServerResponse>();
  const interrupts = new Set<(reason: ProtocolError) => void>();
  const finishing = new Set<Promise<void>>();
  telemetry.watch(liveCounts(server, () => streams.size));
  let closing = false;
  const discovery = options.discovery ?? false;
  const http = { ...httpOptions(settings), landingPage: options.landingPage ?? false };
  try {
    checkAppRoutes(app, http, discovery);
    await app.register(mountMcp, {
      server,
      http,
      streams,
      interrupts,
      finishing,
      cors: true,
      closing: () => closing,
      identify: options.identify,
      catalogs: discovery,
      routePrefix: prefix,
    });
  } catch (err) {
    await assembled.stop();
    throw err;
  }
  const handle: McpToolkitHandle = { readiness: () => readinessReport(server, closing) };
  app.decorate('mcpToolkit', handle);
  // Before the application's server stops accepting: the MCP calls in flight finish and the
  // SSE streams end (or Node's close would wait for them), then the rest is closed.
  app.addHook('preClose', async () => {
    closing = true;
    await assembled.stop((budgetMs) => drain(server, streams, Date.now() + budgetMs, interrupts, finishing));
  });
};

// The fastify-plugin shape: registered without a scope of its own, so the close hooks are the
// application's; the routes keep theirs (mountMcp is registered in a child scope).
Object.assign(plugin, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: 'mcp-toolkit',
  [Symbol.for('plugin-meta')]: { name: 'mcp-toolkit', fastify: '5.x' },
});

/**
 * @example
 * const app = Fastify({ logger: true });
 * app.get('/readyz', async (_req, reply) => {
 *   const r = await app.mcpToolkit.readiness();
 *   return reply.code(r.ready ? 200 : 503).send(r);
 * });
 * await app.register(mcpToolkit, { path: '/mcp', plugins: [notesPlugin], settings: { MCP_AUTH: 'api_key', MCP_API_KEYS: ['ci:a-long-random-key'] } });
 * await app.listen({ port: 3000 });
 */
export const mcpToolkit: FastifyPluginAsync<McpToolkitOptions> = plugin;
export default mcpToolkit;
