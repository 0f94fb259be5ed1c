/**
 * Assembles one server from settings and plugins: the registry, the call wrapper with its
 * guard (scopes, per-tool limits), the dispatcher with the tasks and skills method sets, the
 * hub, the session store, the state codec and the readiness checks. The result has every part
 * the transports ask for (src/transports/deps.ts); nothing here listens.
 */
import type { Logger } from 'pino';
import { checkToolScopes } from '../auth/scopes.ts';
import type { Authenticator } from '../auth/types.ts';
import { InternalCode, ToolkitError } from '../base/errors.ts';
import type { PluginHttpRoute } from '../base/http-route.ts';
import { PACKAGE_VERSION } from '../base/package-version.ts';
import type { Settings } from '../config/settings.ts';
import { describeServer } from '../discovery/server-description.ts';
import { type CallContext, Caller, type CallGuard } from '../execution/call.ts';
import { composeInstructions, type LoadedPlugin, type PluginApp } from '../plugin/define.ts';
import { createPluginLifecycle } from '../plugin/lifecycle.ts';
import { ownedRegistry, registerPlugin } from '../plugin/register.ts';
import { createRouteTable } from '../plugin/routes.ts';
import { deprecatedInputNotices } from '../protocol/deprecated-input.ts';
import { Dispatcher, type DispatcherOptions } from '../protocol/dispatcher.ts';
import { createFanOut } from '../protocol/hub/announcements.ts';
import { Hub } from '../protocol/hub/hub.ts';
import { createInputRounds } from '../protocol/input.ts';
import { checkMiddleware, type Middleware } from '../protocol/middleware.ts';
import type { RequestContext, UpstreamTokenSource } from '../protocol/request-context.ts';
import { createMemorySessionStore, type SessionStore } from '../protocol/session/store.ts';
import { createStateCodec, type StateCodec } from '../protocol/state-codec.ts';
import { rateLimitError } from '../ratelimit/errors.ts';
import { clientKey, type RateLimiter } from '../ratelimit/limiter.ts';
import { appsExtension, checkAppLinks } from '../registry/apps.ts';
import { Registry } from '../registry/registry.ts';
import { createVisibility, type Visibility } from '../registry/visibility.ts';
import type { SharedState } from '../scale/scale-out.ts';
import { loadSkillCatalog, type SkillCatalog } from '../skills/catalog.ts';
import { skillMethods } from '../skills/methods.ts';
import { skillResources } from '../skills/resources.ts';
import { TaskEngine } from '../tasks/engine.ts';
import { createLocalTaskBus, createMemoryTaskStore } from '../tasks/memory-store.ts';
import { taskLane, taskMethods } from '../tasks/methods.ts';
import type { TaskBackend } from '../tasks/types.ts';
import { NOOP_TELEMETRY, type Telemetry } from '../telemetry/tracing.ts';
import type { AuthorizationServerRoutes, ConnectionDeps, EventStore, HttpDeps } from '../transports/deps.ts';
import { createReadiness, pluginStartUpProblems, runPluginChecks } from './readiness.ts';

export { PACKAGE_VERSION };

/**
 * One assembled server. It is what every transport takes: it has each part their seams ask for
 * (src/transports/deps.ts), and the test kit drives it in-process.
 */
export interface McpServer extends HttpDeps, ConnectionDeps {
  readonly settings: Settings;
  readonly registry: Registry;
  readonly dispatcher: Dispatcher;
  readonly hub: Hub;
  readonly sessions: SessionStore;
  readonly logger: Logger;
  readonly plugins: readonly LoadedPlugin[];
  readonly auth: Authenticator | undefined;
  readonly limiter: RateLimiter | undefined;
  readonly telemetry: Telemetry;
  /** The plugins' HTTP routes, in declaration order. */
  readonly routes: readonly PluginHttpRoute[];
  /** The plugins' route handlers running now, whichever transport called them. */
  readonly routeInflightCount: number;
  /** What initialize and server/discover send as `instructions` (composeInstructions). */
  readonly instructions: string | undefined;
  /** The SSE event store shared with other replicas; undefined on a single replica. */
  readonly eventStore: EventStore | undefined;
  /** Long-running tools as tasks. */
  readonly tasks: TaskEngine;
  /** Tells subscribed sessions that a resource changed. */
  notifyResourceUpdated(uri: string): Promise<void>;
  /**
   * Runs the plugins' onClose hooks (once; reverse registration order, within `budgetMs`).
   * Call it after the transport has drained; `close()` runs it too if it has not run.
   */
  closePlugins(budgetMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface McpServerOptions {
  settings: Settings;
  plugins: readonly LoadedPlugin[];
  logger: Logger;
  sessions?: SessionStore;
  hub?: Hub;
  /** Verifies callers at the HTTP edge and checks per-tool scopes. */
  auth?: Authenticator;
  /** Per-client limits at the HTTP edge and per-tool limits in the call path. */
  limiter?: RateLimiter;
  telemetry?: Telemetry;
  /** Observes every request (spans, log lines). */
  observe?: DispatcherOptions['observe'];
  /** State shared with other replicas (pass `sessions` and `hub` from the same scale-out). */
  shared?: SharedState;
  /** Seals 2026 requestState; default: from MCP_STATE_SECRET and MCP_STATE_TTL_MS (tests pass a fake clock). */
  stateCodec?: StateCodec;
  /**
   * Run every plugin's `doctor` once after registration, stopping start-up on a failed
   * `config` check (default true; `mcp-toolkit doctor`, which ran them itself, passes false).
   */
  checkPlugins?: boolean;
  /** The task store and bus; default: in memory (one replica). */
  tasks?: TaskBackend;
  /**
   * Our own authorisation server (MCP_AUTH=oauth-proxy): its routes are mounted beside the MCP
   * endpoint, and tools get the caller's upstream token from it (`ctx.upstreamToken()`).
   */
  authorizationServer?: AuthorizationServerRoutes & { upstreamToken: UpstreamTokenSource };
}

/**
 * The checks before a handler runs: the caller's scopes for the item (an OAuth token's or an
 * API key's; 403 `insufficient_scope` so the client can step up), then a tool's own rate
 * limit. An identity given without an authenticator (an embedding host's `identify`, a
 * TestClient's `identity`) is held to its own scopes, as visibility holds it.
 */
function callGuard(auth: Authenticator | undefined, limiter: RateLimiter | undefined): CallGuard {
  const checkScopes = (scopes: readonly string[] | undefined, ctx: CallContext) => {
    if (!ctx.identity || !scopes || scopes.length === 0) return;
    if (auth) auth.checkScopes(ctx.identity, scopes);
    else checkToolScopes(ctx.identity, scopes);
  };
  return {
    name: 'scopes and per-tool limits',
    // A promise only where a tool's own limit is asked (the store may be Redis): a tool without
    // one is checked synchronously, with no promise made or awaited on its calls.
    tool(def, ctx) {
      checkScopes(def.spec.scopes, ctx);
      const rateLimit = def.spec.rateLimit;
      if (!limiter || !rateLimit) return;
      return limiter
        .consumeTool(def.name, clientKey(ctx.identity, ctx.address), rateLimit)
        .then((decision) => {
          if (!decision.allowed) throw rateLimitError(decision, `tool ${def.name}`);
        });
    },
    item: (spec, ctx) => checkScopes(spec.scopes, ctx),
  };
}

/**
 * Who sees what: with `MCP_SCOPE_VISIBILITY=hide`, items whose scopes the caller lacks are
 * left out (by the authenticator's own rule); `visible(identity)` rules apply either way.
 */
function visibility(auth: Authenticator | undefined, settings: Settings): Visibility {
  return createVisibility({
    hideByScopes: settings.MCP_SCOPE_VISIBILITY === 'hide',
    hasScopes: (identity, scopes) => {
      // Without an authenticator (an in-process TestClient with an identity), the identity's own list.
      if (!auth) return scopes.every((s) => identity.scopes.includes(s));
      return auth.hasScopes(identity, scopes);
    },
  });
}

/**
 * Builds the server and runs every plugin's `register` step.
 *
 * @example
 * const server = await buildMcpServer({ settings: parseSettings({}), plugins: [], logger: pino() });
 */
export async function buildMcpServer(options: McpServerOptions): Promise<McpServer> {
  const { settings, logger } = options;
  const registry = new Registry();
  const hub = options.hub ?? new Hub();
  const telemetry = options.telemetry ?? NOOP_TELEMETRY;
  // Every end of a 2025-wire session (HTTP DELETE, a closed connection, idle expiry) comes
  // here: telemetry's session duration, then the plugins' onSessionEnd hooks.
  const sessionEndHooks: { readonly plugin: string; readonly fn: (sessionId: string) => void }[] = [];
  const sessionEnded = (id: string): void => {
    telemetry.sessionEnded(id);
    for (const { plugin, fn } of sessionEndHooks) {
      try {
        fn(id);
      } catch (err) {
        logger.error({ plugin, err }, `plugin "${plugin}": onSessionEnd failed`);
      }
    }
  };
  const sessions =
    options.sessions ??
    createMemorySessionStore({
      idleMs: settings.MCP_SESSION_IDLE_MS,
      maxSessions: settings.MCP_MAX_SESSIONS,
      // An idle session that expires has ended (mcp.server.session.duration).
      onExpire: sessionEnded,
    });
  const codec =
    options.stateCodec ??
    createStateCodec({ secret: settings.MCP_STATE_SECRET, ttlMs: settings.MCP_STATE_TTL_MS });

  // Each replica fans announcements out to its own sessions and listen streams; the hub's
  // relay (if any) hands them to the other replicas, which do the same. With a session feed
  // (replicas), the replica where a change is made also writes it to every open feed.
  const visible = visibility(options.auth, settings);
  const fanOut = createFanOut({
    sessionStreams: hub.sessionStreams,
    listenStreams: hub.listenStreams,
    sessions,
    registry,
    visible,
  });
  hub.announcements.onAnnounce(fanOut.handle);
  const notifyResourceUpdated = (uri: string) =>
    hub.announcements.announce({ type: 'resource_updated', uri });

  // Registration at start-up changes lists that no client has seen yet: nothing to announce,
  // least of all to the clients of other replicas.
  let registering = true;
  registry.onChange((change) => {
    if (registering) void fanOut.listChanged(change, false);
    else void hub.announcements.announce({ type: 'list_changed', ...change });
  });

  const owned = ownedRegistry(registry);
  const middleware: Middleware[] = [];
  const routes = createRouteTable();
  const lifecycle = createPluginLifecycle(logger);
  for (const { definition, settings: pluginSettings } of options.plugins) {
    const app: PluginApp = {
      ...lifecycle.forPlugin(definition.name),
      use: (m) => {
        const problem = checkMiddleware(m);
        if (problem) {
          throw new ToolkitError(InternalCode.PluginInvalid, `Plugin "${definition.name}": ${problem}`);
        }
        middleware.push(m);
      },
      add: (...defs) => {
        for (const def of defs) owned.add(definition.name, def);
      },
      httpRoute: (route) => routes.add(definition.name, route),
      remove: (kind, key) => registry.remove(kind, key),
      notifyResourceUpdated: (uri) => void notifyResourceUpdated(uri),
      notifyListChanged: (kind) => registry.notifyListChanged(kind),
      onSessionEnd: (fn) => {
        if (typeof fn !== 'function') {
          throw new ToolkitError(
            InternalCode.PluginInvalid,
            `Plugin "${definition.name}": app.onSessionEnd takes a function`,
          );
        }
        sessionEndHooks.push({ plugin: definition.name, fn });
      },
      logger: logger.child({ plugin: definition.name }),
    };
    await registerPlugin(definition, app, pluginSettings);
  }
  // Skills last: the plugins' resources keep their place at the head of resources/list.
  let skills: SkillCatalog | undefined;
  if (settings.MCP_SKILLS_DIR !== undefined) {
    skills = await loadSkillCatalog(settings.MCP_SKILLS_DIR, logger.child({ component: 'skills' }));
    for (const def of skillResources(skills)) registry.add(def);
    logger.info({ skills: skills.skills.length }, 'skills loaded');
  }
  registering = false;
  // SEP-2577: a tool that declares it asks for sampling or roots is named once, now.
  const notices = deprecatedInputNotices(logger);
  notices.atStart(registry.tools());

  checkAppLinks(registry);
  // A plugin setting that can never work stops start-up here (exit code 2), with the lines
  // `mcp-toolkit doctor` prints for it, instead of leaving the server not ready for good.
  if (options.checkPlugins !== false) {
    const problems = pluginStartUpProblems(await runPluginChecks(options.plugins));
    if (problems.length > 0) throw new ToolkitError(InternalCode.InvalidSetting, problems.join('\n'));
  }
  const instructions = composeInstructions(settings.MCP_SERVER_INSTRUCTIONS, options.plugins);
  const taskBackend: TaskBackend = options.tasks ?? memoryTaskBackend();
  // The one call wrapper: the guard, the deadlines and the input rounds, given once here.
  const caller = new Caller<RequestContext>({
    guard: callGuard(options.auth, options.limiter),
    input: createInputRounds({ hub, codec, inputTimeoutMs: settings.MCP_INPUT_TIMEOUT_MS, notices }),
    toolTimeoutMs: settings.MCP_TOOL_TIMEOUT_MS,
    heartbeatMs: settings.MCP_PROGRESS_HEARTBEAT_MS,
  });
  const tasks = new TaskEngine({
    caller,
    registry,
    hub,
    sessions,
    store: taskBackend.store,
    bus: taskBackend.bus,
    liveness: taskBackend.liveness,
    logger: logger.child({ component: 'tasks' }),
    ttlMs: settings.MCP_TASK_TTL_MS,
    pollIntervalMs: settings.MCP_TASK_POLL_INTERVAL_MS,
    now: taskBackend.now,
  });

  const dispatcher = new Dispatcher({
    registry,
    sessions,
    hub,
    logger,
    serverInfo: { name: settings.MCP_SERVER_NAME, version: PACKAGE_VERSION },
    instructions,
    extensions: appsExtension(registry),
    caller,
    inputTimeoutMs: settings.MCP_INPUT_TIMEOUT_MS,
    pageSize: settings.MCP_PAGE_SIZE,
    maxListenStreams: settings.MCP_MAX_LISTEN_STREAMS,
    maxBatch: settings.MCP_MAX_BATCH,
    maxJsonDepth: settings.MCP_MAX_JSON_DEPTH,
    visible,
    middleware,
    observe: options.observe,
    methodSets: [taskMethods(tasks), skillMethods(skills)],
    tasks: taskLane(tasks),
    ...(options.authorizationServer
      ? { upstreamTokens: options.authorizationServer.upstreamToken.bind(options.authorizationServer) }
      : {}),
  });
  // A view added or removed at run time switches the MCP Apps extension on or off.
  registry.onChange(({ kind }) => {
    if (kind === 'resources') dispatcher.setExtensions(appsExtension(registry));
  });

  const server: McpServer = {
    settings,
    registry,
    dispatcher,
    hub,
    sessions,
    logger,
    plugins: options.plugins,
    auth: options.auth,
    limiter: options.limiter,
    telemetry,
    sessionEnded,
    instructions,
    routes: routes.routes,
    ...(options.authorizationServer ? { authorizationServer: options.authorizationServer } : {}),
    get routeInflightCount() {
      return routes.inflightCount;
    },
    eventStore: options.shared?.eventStore,
    readiness: createReadiness({
      limiter: options.limiter,
      shared: options.shared,
      auth: options.auth,
      plugins: options.plugins,
    }),
    toolScopes: () => registry.toolListing().flatMap((t) => registry.tool(String(t.name))?.spec.scopes ?? []),
    describe: (baseUrl) => describeServer(server, baseUrl),
    tasks,
    notifyResourceUpdated,
    closePlugins: (budgetMs) => lifecycle.close(budgetMs),
    async close() {
      await tasks.close();
      await lifecycle.close(settings.MCP_SHUTDOWN_TIMEOUT_MS);
      await taskBackend.close?.();
      await sessions.close();
    },
  };
  // Every plugin has registered: their onReady hooks run before anything is served. One that
  // throws stops start-up; what the others opened is closed again.
  try {
    await lifecycle.ready();
  } catch (err) {
    await server.close().catch(() => {});
    throw err;
  }
  return server;
}

function memoryTaskBackend(): TaskBackend {
  const store = createMemoryTaskStore();
  const bus = createLocalTaskBus();
  return {
    store,
    bus,
    async close() {
      await store.close();
      await bus.close();
    },
  };
}
