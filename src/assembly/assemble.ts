/**
 * One server put together from its options, as `createServer()`, `serve()` and the Fastify
 * plugin all need it: the settings resolved once (a settings object over an environment),
 * logging and tracing, the plugins (definitions or names), auth and rate limits, the shared
 * state of replicas, the server itself with its plugins registered and ready; and the one
 * shutdown sequence, whichever transport drains first.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AuthorizationServer } from '../auth/oauth-proxy/authorization-server.ts';
import { requireAuthBeyondLoopback } from '../auth/public-bind.ts';
import type { Authenticator } from '../auth/types.ts';
import { InternalCode, ToolkitError } from '../base/errors.ts';
import { isLoopbackHost } from '../base/loopback.ts';
import {
  parseSettings,
  requireReplicaSettings,
  SETTING_NAMES,
  type Settings,
  type SettingsInput,
  settingsRecord,
} from '../config/settings.ts';
import { describeUnknownSetting, unknownSettings } from '../config/unknown-settings.ts';
import type { LoadedPlugin, PluginDefinition } from '../plugin/define.ts';
import { importPlugin, loadPlugins, parsePluginSettings, pluginSettingNames } from '../plugin/loader.ts';
import { createRateLimiter, type RateLimiter } from '../ratelimit/limiter.ts';
import type { ScaleOut } from '../scale/scale-out.ts';
import { createLogger } from '../telemetry/logger.ts';
import { parseTracingConfig } from '../telemetry/otel-settings.ts';
import { createRequestObserver } from '../telemetry/request-observer.ts';
import { createTelemetry, type LiveCounts, type Telemetry, telemetryMode } from '../telemetry/tracing.ts';
import { guardProcessStdout } from '../transports/stdio.ts';
import { buildMcpServer, type McpServer, PACKAGE_VERSION } from './server.ts';

/** Longest start-up waits for the subscription that lets replicas reach this one. */
const SCALE_READY_WAIT_MS = 2000;
/**
 * How long before the end of the drain the tasks still running are aborted, as calls are
 * (src/transports/http/mount.ts): time to record them failed before Redis closes.
 */
const TASK_CUT_OFF_GRACE_MS = 1000;

/** A plugin to load: a `definePlugin(...)` result, or a name or module path as MCP_PLUGINS takes it. */
// biome-ignore lint/suspicious/noExplicitAny: every plugin's settings type fits here
export type PluginRef = string | PluginDefinition<any>;

export interface AssembleOptions {
  /** The plugins; default: MCP_PLUGINS. Their MCP_<PLUGIN>_* settings come from the same settings. */
  plugins?: readonly PluginRef[];
  /** Settings by MCP_* (and OTEL_*) name; they win over `env`. */
  settings?: SettingsInput;
  /** An environment read below `settings` (the CLI and serve() pass process.env; default none). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Values over both (the CLI's flags). */
  overrides?: SettingsInput;
  /** The logger; default: pino on stderr as MCP_LOG_LEVEL and MCP_LOG_FORMAT say. */
  logger?: Logger;
  /**
   * How clients reach it: `http` listens on MCP_HTTP_HOST and MCP_HTTP_PORT, `none` is
   * mounted on an application's own server (auth and scale-out apply to both). Default: MCP_TRANSPORT.
   */
  transport?: TransportKind;
}

/** How clients reach the server: stdio, HTTP on its own port, or none (a handler mounts it). */
export type TransportKind = 'stdio' | 'http' | 'none';

export interface Assembled {
  readonly transport: TransportKind;
  /** On stdio: the real stdout's write (stray writes go to stderr from before the plugins load). */
  readonly protocolWrite: ((chunk: string) => boolean) | undefined;
  readonly server: McpServer;
  readonly settings: Settings;
  readonly logger: Logger;
  readonly telemetry: Telemetry;
  /** The part of the budget kept for exporting spans and metrics at the end. */
  readonly flushShareMs: number;
  /**
   * Stops once: `drain` (the transport's: stop accepting, let in-flight calls finish, end
   * streams) and the running tasks, within MCP_SHUTDOWN_TIMEOUT_MS less the flush share
   * (what still runs at the end is stopped: calls answered 503, tasks failed), then the
   * plugins' onClose hooks, the limiter, Redis, telemetry and the sessions.
   */
  stop(drain?: (budgetMs: number) => Promise<void>): Promise<void>;
}

async function resolvePlugins(
  refs: readonly PluginRef[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  for (const ref of refs) {
    const definition = (typeof ref === 'string' ? await importPlugin(ref) : ref) as PluginDefinition<
      Record<string, unknown>
    >;
    if (loaded.some((p) => p.definition.name === definition.name)) {
      throw new ToolkitError(InternalCode.PluginInvalid, `Plugin "${definition.name}" is listed twice`);
    }
    loaded.push({ definition, settings: parsePluginSettings(definition, env) });
  }
  return loaded;
}

/**
 * What the live gauges read from a server (requests running, sessions held), plus a
 * transport's open event streams.
 *
 * @example
 * telemetry.watch(liveCounts(server, () => streams.size));
 */
export function liveCounts(server: McpServer, streams?: () => number): LiveCounts {
  return {
    inflight: () => server.dispatcher.inflightCount + server.routeInflightCount,
    sessions: () => server.sessions.size(),
    streams,
  };
}

/**
 * @example
 * const { server, stop } = await assemble({ settings: { MCP_PLUGINS: 'filesystem' }, http: true });
 */
export async function assemble(options: AssembleOptions): Promise<Assembled> {
  const env = {
    ...(options.env ?? {}),
    ...settingsRecord(options.settings ?? {}),
    ...settingsRecord(options.overrides ?? {}),
  };
  const settings = parseSettings(env);
  requireReplicaSettings(settings);
  // The standard OTEL_* variables, from the same source as MCP_* (bad values stop start-up).
  const tracing = parseTracingConfig(env, settings, PACKAGE_VERSION);
  const logger =
    options.logger ??
    createLogger({
      level: settings.MCP_LOG_LEVEL,
      format: settings.MCP_LOG_FORMAT,
      logToolArgs: settings.MCP_LOG_TOOL_ARGS,
    });
  const transport = options.transport ?? settings.MCP_TRANSPORT;
  const http = transport !== 'stdio';
  const listens = transport === 'http';
  // No auth beyond loopback only when the operator asked for it (src/auth/public-bind.ts).
  if (listens) requireAuthBeyondLoopback(settings);
  // On stdio, stdout is the protocol stream from the first byte: a plugin that prints while
  // it loads or registers must not corrupt it, so stray writes go to stderr from here on.
  const protocolWrite = http ? undefined : guardProcessStdout();
  // What only one transport or setting needs is loaded on demand, alongside the plugins: a
  // stdio server for a desktop agent starts without jose or ioredis.
  const authModules = http
    ? Promise.all([import('../auth/create.ts'), import('./transport-options.ts')])
    : undefined;
  const proxyModule =
    http && settings.MCP_AUTH === 'oauth-proxy' ? import('../auth/oauth-proxy/from-settings.ts') : undefined;
  const redisModules = settings.MCP_REDIS_URL
    ? Promise.all([
        import('../redis/client.ts'),
        import('../scale/scale-out.ts'),
        import('../redis/connection.ts'),
      ])
    : undefined;
  // Everything that can refuse a setting runs before anything listens.
  const plugins = options.plugins
    ? await resolvePlugins(options.plugins, env)
    : await loadPlugins(settings.MCP_PLUGINS, env);
  for (const unknown of unknownSettings(env, [...SETTING_NAMES, ...pluginSettingNames(plugins)])) {
    logger.warn({ variable: unknown.name, suggestion: unknown.suggestion }, describeUnknownSetting(unknown));
  }
  let auth: Authenticator | undefined;
  if (authModules) {
    const [{ authWarnings, createAuthenticator }, { oauthResourceUrls }] = await authModules;
    if (
      (settings.MCP_AUTH === 'oauth' || settings.MCP_AUTH === 'oauth-proxy') &&
      !settings.MCP_PUBLIC_URL &&
      (settings.MCP_HTTP_PORT === 0 || !listens)
    ) {
      // The OAuth resource (token audience, metadata, challenges) names the URL clients use; a
      // port picked at bind time, or an application's own server, cannot be known here.
      throw new ToolkitError(
        InternalCode.InvalidSetting,
        listens
          ? `MCP_AUTH=${settings.MCP_AUTH} with MCP_HTTP_PORT=0 needs MCP_PUBLIC_URL: the public URL clients reach this server on`
          : `MCP_AUTH=${settings.MCP_AUTH} inside an application needs MCP_PUBLIC_URL: the public URL clients reach this server on`,
      );
    }
    // oauth-proxy: our own authorisation server, built below once Redis is known.
    if (settings.MCP_AUTH !== 'oauth-proxy')
      auth = createAuthenticator(settings, oauthResourceUrls(settings));
    for (const warning of authWarnings(settings)) logger.warn(warning);
    if (listens && !auth && !proxyModule && !isLoopbackHost(settings.MCP_HTTP_HOST)) {
      // Allowed by MCP_ALLOW_PUBLIC_UNAUTHENTICATED=true (else start-up stopped above).
      logger.warn(
        { host: settings.MCP_HTTP_HOST, allowedHosts: settings.MCP_ALLOWED_HOSTS },
        'MCP_AUTH=none beyond loopback (MCP_ALLOW_PUBLIC_UNAUTHENTICATED=true): anyone who can reach this port can call every tool',
      );
    }
  }
  let redis: Redis | undefined;
  let scale: ScaleOut | undefined;
  if (redisModules && settings.MCP_REDIS_URL) {
    const [{ createRedisClient }, { createScaleOut }, { connectRedis, redisConnectionOptions }] =
      await redisModules;
    const connection = redisConnectionOptions(settings);
    redis = createRedisClient(settings.MCP_REDIS_URL, { connection });
    // A refused password or certificate stops start-up here, naming the setting; Redis not
    // up yet is an outage like any other (readiness reports it, the client reconnects).
    const failure = await connectRedis(redis);
    if (failure) logger.warn({ err: failure.message }, 'Redis unreachable at start-up');
    // Replicas share sessions, SSE events and routing through the same Redis (HTTP only: a
    // stdio server is one client's process).
    if (http) {
      scale = createScaleOut({ redis, settings, logger, connection });
      // Hear the other replicas before serving; a Redis still away at start-up delays this little.
      await Promise.race([scale.ready, new Promise((r) => setTimeout(r, SCALE_READY_WAIT_MS).unref())]);
    }
  }
  let authorizationServer: AuthorizationServer | undefined;
  let serverRef: McpServer | undefined;
  if (proxyModule && authModules) {
    const [{ authorizationServerFromSettings }, [, { oauthResourceUrls, publicBaseUrl }]] = await Promise.all(
      [proxyModule, authModules],
    );
    const urls = oauthResourceUrls(settings);
    authorizationServer = await authorizationServerFromSettings(settings, {
      publicUrl: publicBaseUrl(settings),
      resource: urls.resource,
      resourceMetadataUrl: urls.resourceMetadataUrl,
      toolScopes: () => serverRef?.toolScopes() ?? [],
      redis,
      logger,
    });
    auth = authorizationServer.authenticator;
  }
  const limiter: RateLimiter = createRateLimiter({
    rps: settings.MCP_RATE_LIMIT_RPS,
    burst: settings.MCP_RATE_LIMIT_BURST,
    failMode: settings.MCP_RATE_LIMIT_FAIL,
    store: redis ? { redis } : 'memory',
    logger,
  });
  const closeShared = async () => {
    await limiter.close();
    await authorizationServer?.close();
    await scale?.close();
    await redis?.quit().catch(() => redis?.disconnect());
  };
  const prometheus =
    settings.MCP_METRICS_PORT === undefined
      ? undefined
      : { host: settings.MCP_METRICS_HOST ?? settings.MCP_HTTP_HOST, port: settings.MCP_METRICS_PORT };
  const mode = telemetryMode(tracing, prometheus);
  const telemetry = await createTelemetry({
    config: tracing,
    onExportError: (signal, err) => logger.warn({ signal, err: err?.message }, 'OTLP export failing'),
    prometheus,
  }).catch(async (err: unknown) => {
    await closeShared().catch(() => {});
    throw err;
  });
  if (telemetry.metricsUrl !== undefined) {
    logger.info(
      { url: telemetry.metricsUrl },
      'metrics: Prometheus text format at this URL (its own port, no authentication)',
    );
  } else if (prometheus !== undefined) {
    logger.warn(
      { port: prometheus.port },
      mode === 'application'
        ? 'MCP_METRICS_PORT is not served: the application registered its own OpenTelemetry SDK, whose metric readers are its own (add a PrometheusExporter there)'
        : 'MCP_METRICS_PORT is not served: OTEL_SDK_DISABLED=true',
    );
  }
  if (mode === 'application') {
    logger.info('tracing: using the OpenTelemetry TracerProvider the application registered');
  } else if (mode === 'own' && (tracing.traces !== undefined || tracing.metrics !== undefined)) {
    logger.info(
      { traces: tracing.traces?.url, metrics: tracing.metrics?.url, service: tracing.serviceName },
      'tracing: OpenTelemetry SDK started, exporting OTLP',
    );
  }
  let server: McpServer;
  try {
    server = await buildMcpServer({
      settings,
      logger,
      plugins,
      auth,
      limiter,
      telemetry,
      // Nothing to observe when tracing is off and request lines are below the log level: the
      // dispatcher then skips the per-request bookkeeping altogether.
      observe:
        telemetry.enabled || logger.isLevelEnabled('info')
          ? createRequestObserver({ telemetry, logger })
          : undefined,
      sessions: scale?.sessions,
      hub: scale?.hub,
      shared: scale?.shared,
      tasks: scale?.tasks,
      authorizationServer,
    });
    serverRef = server;
  } catch (err) {
    await closeShared().catch(() => {});
    await telemetry.shutdown(1000).catch(() => {});
    throw err;
  }

  // The live gauges (mcp.server.active_requests, .active_sessions); a transport with event
  // streams adds its count (serve.ts, fastify.ts).
  telemetry.watch(liveCounts(server));
  const budgetMs = settings.MCP_SHUTDOWN_TIMEOUT_MS;
  // The span and metric flush is part of MCP_SHUTDOWN_TIMEOUT_MS, not added to it: in-flight
  // calls get the budget less a share kept for the flush (a quarter, at most 2 s).
  const flushShareMs = telemetry.enabled ? Math.min(2000, Math.floor(budgetMs / 4)) : 0;
  let stopping: Promise<void> | undefined;
  const stop = (drain?: (budgetMs: number) => Promise<void>) => {
    stopping ??= (async () => {
      const started = Date.now();
      const deadline = started + budgetMs;
      logger.info('shutting down');
      if (drain) await drain(budgetMs - flushShareMs);
      // Running tasks are in-flight work as calls are: they get the same budget, and those
      // still running at the calls' cut-off (a second before its end, or its last quarter)
      // are aborted and recorded as failed, before Redis goes.
      const drainEnd = deadline - flushShareMs;
      const tasksUntil = drainEnd - Math.min(TASK_CUT_OFF_GRACE_MS, Math.max(0, (drainEnd - started) / 4));
      if (server.tasks.runningCount > 0 && Date.now() < tasksUntil) {
        logger.info({ tasks: server.tasks.runningCount }, 'shutdown: waiting for running tasks');
      }
      await server.tasks.drain(tasksUntil);
      // The calls have drained: the plugins may let go of what they hold.
      await server.closePlugins(Math.max(0, deadline - Date.now() - flushShareMs));
      await closeShared();
      await telemetry.shutdown(Math.max(flushShareMs, deadline - Date.now()));
      await server.close();
    })();
    return stopping;
  };
  return { transport, protocolWrite, server, settings, logger, telemetry, flushShareMs, stop };
}
