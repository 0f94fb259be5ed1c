/**
 * `serve()`, the single entry point: settings → logging and tracing → auth and rate limits
 * → plugins → server → transport, plus signal handling for a graceful stop. The CLI is a
 * thin layer over it.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Authenticator } from './auth/types.ts';
import { InternalCode, ToolkitError } from './base/errors.ts';
import { parseSettings, requireReplicaSettings, SETTING_NAMES, type Settings } from './config/settings.ts';
import { describeUnknownSetting, unknownSettings } from './config/unknown-settings.ts';
import { loadPlugins, pluginSettingNames } from './plugin-loader.ts';
import { createRateLimiter, type RateLimiter } from './ratelimit/limiter.ts';
import type { ScaleOut } from './scale/scale-out.ts';
import { createServer, type McpServer, PACKAGE_VERSION } from './server.ts';
import { createLogger } from './telemetry/logger.ts';
import { parseTracingConfig } from './telemetry/otel-settings.ts';
import { createRequestObserver } from './telemetry/request-observer.ts';
import { createTelemetry, telemetryMode } from './telemetry/tracing.ts';
import type { HttpHandle } from './transports/http/server.ts';
import { guardProcessStdout, serveStdio } from './transports/stdio.ts';

/** Longest start-up waits for the subscription that lets replicas reach this one. */
const SCALE_READY_WAIT_MS = 2000;

export interface ServeOptions {
  /** Environment to read MCP_* settings from (the CLI passes process.env). */
  env: Readonly<Record<string, string | undefined>>;
  /** Values that override the environment (CLI flags). */
  overrides?: Readonly<Record<string, string | undefined>>;
  /** Install SIGTERM/SIGINT handlers (the CLI does; tests usually do not). */
  handleSignals?: boolean;
}

export interface RunningServer {
  readonly server: McpServer;
  readonly settings: Settings;
  /** The MCP endpoint URL (HTTP transport only). */
  readonly url: string | undefined;
  /** Stops accepting, lets in-flight calls finish (MCP_SHUTDOWN_TIMEOUT_MS), closes streams, flushes spans. */
  stop(): Promise<void>;
  /** Resolves when the server has stopped (stdin EOF on stdio, stop() on HTTP). */
  readonly closed: Promise<void>;
}

/**
 * Starts the server the settings describe.
 *
 * @example
 * const running = await serve({ env: { MCP_TRANSPORT: 'http', MCP_HTTP_PORT: '0' } });
 * console.error(running.url);
 */
export async function serve(options: ServeOptions): Promise<RunningServer> {
  const env = { ...options.env, ...stripUndefined(options.overrides ?? {}) };
  const settings = parseSettings(env);
  requireReplicaSettings(settings);
  // The standard OTEL_* variables, from the same environment as MCP_* (bad values stop start-up).
  const tracing = parseTracingConfig(env, settings, PACKAGE_VERSION);
  const logger = createLogger({
    level: settings.MCP_LOG_LEVEL,
    format: settings.MCP_LOG_FORMAT,
    logToolArgs: settings.MCP_LOG_TOOL_ARGS,
  });
  const http = settings.MCP_TRANSPORT === 'http';
  // On stdio, stdout is the protocol stream from the first byte: a plugin that prints while
  // it loads or registers must not corrupt it, so stray writes go to stderr from here on.
  const protocolWrite = http ? undefined : guardProcessStdout();
  // What only one transport or setting needs is loaded on demand, alongside the plugins: a
  // stdio server for a desktop agent starts without Fastify, jose or ioredis.
  const httpModules = http
    ? Promise.all([
        import('./transport-options.ts'),
        import('./auth/create.ts'),
        import('./auth/resource-metadata.ts'),
        import('./transports/http/server.ts'),
      ])
    : undefined;
  const redisModules = settings.MCP_REDIS_URL
    ? Promise.all([import('./ratelimit/redis-client.ts'), import('./scale/scale-out.ts')])
    : undefined;
  // Everything that can refuse a setting runs before anything listens.
  const plugins = await loadPlugins(settings.MCP_PLUGINS, env);
  for (const unknown of unknownSettings(env, [...SETTING_NAMES, ...pluginSettingNames(plugins)])) {
    logger.warn({ variable: unknown.name, suggestion: unknown.suggestion }, describeUnknownSetting(unknown));
  }
  let auth: Authenticator | undefined;
  if (httpModules) {
    const [{ publicBaseUrl }, { authWarnings, createAuthenticator }, { resourceUrls }] = await httpModules;
    if (settings.MCP_AUTH === 'oauth' && settings.MCP_HTTP_PORT === 0 && !settings.MCP_PUBLIC_URL) {
      // The OAuth resource (token audience, metadata, challenges) names the URL clients use; a
      // port picked at bind time cannot be known here, so it has to be given.
      throw new ToolkitError(
        InternalCode.InvalidSetting,
        'MCP_AUTH=oauth with MCP_HTTP_PORT=0 needs MCP_PUBLIC_URL: the public URL clients reach this server on',
      );
    }
    const urls = resourceUrls({
      publicUrl: publicBaseUrl(settings),
      mcpPath: settings.MCP_HTTP_PATH,
      audience: settings.MCP_OAUTH_AUDIENCE,
    });
    auth = createAuthenticator(settings, urls);
    for (const warning of authWarnings(settings)) logger.warn(warning);
    if (
      !auth &&
      settings.MCP_ALLOWED_HOSTS.length === 0 &&
      !/^(127\.|localhost$|::1$)/.test(settings.MCP_HTTP_HOST)
    ) {
      logger.warn(
        { host: settings.MCP_HTTP_HOST },
        'public bind with MCP_AUTH=none and no MCP_ALLOWED_HOSTS: anyone who can reach this port can call every tool',
      );
    }
  }
  let redis: Redis | undefined;
  let scale: ScaleOut | undefined;
  if (redisModules && settings.MCP_REDIS_URL) {
    const [{ createRedisClient }, { createScaleOut }] = await redisModules;
    redis = createRedisClient(settings.MCP_REDIS_URL);
    await redis
      .connect()
      .catch((err: Error) => logger.warn({ err: err.message }, 'Redis unreachable at start-up'));
    // Replicas share sessions, SSE events and routing through the same Redis (HTTP only: a
    // stdio server is one client's process).
    if (http) {
      scale = createScaleOut({ redis, settings, logger });
      // Hear the other replicas before serving; a Redis still away at start-up delays this little.
      await Promise.race([scale.ready, new Promise((r) => setTimeout(r, SCALE_READY_WAIT_MS).unref())]);
    }
  }
  const limiter: RateLimiter = createRateLimiter({
    rps: settings.MCP_RATE_LIMIT_RPS,
    burst: settings.MCP_RATE_LIMIT_BURST,
    failMode: settings.MCP_RATE_LIMIT_FAIL,
    store: redis ? { redis } : 'memory',
    logger,
  });
  const mode = telemetryMode(tracing);
  const telemetry = await createTelemetry({
    config: tracing,
    onExportError: (signal, err) => logger.warn({ signal, err: err?.message }, 'OTLP export failing'),
  });
  if (mode === 'application') {
    logger.info('tracing: using the OpenTelemetry TracerProvider the application registered');
  } else if (mode === 'own') {
    logger.info(
      { traces: tracing.traces?.url, metrics: tracing.metrics?.url, service: tracing.serviceName },
      'tracing: OpenTelemetry SDK started, exporting OTLP',
    );
  }
  const server = await createServer({
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
  });

  let httpHandle: HttpHandle | undefined;
  let stopping: Promise<void> | undefined;
  const budgetMs = settings.MCP_SHUTDOWN_TIMEOUT_MS;
  // The span and metric flush is part of MCP_SHUTDOWN_TIMEOUT_MS, not added to it: in-flight
  // calls get the budget less a share kept for the flush (a quarter, at most 2 s).
  const flushShareMs = telemetry.enabled ? Math.min(2000, Math.floor(budgetMs / 4)) : 0;
  const stop = () => {
    stopping ??= (async () => {
      const deadline = Date.now() + budgetMs;
      logger.info('shutting down');
      if (httpHandle) await httpHandle.close(budgetMs - flushShareMs);
      // Before Redis goes: the tasks still running here are recorded as failed there.
      await server.tasks.close();
      await limiter.close();
      await scale?.close();
      await redis?.quit().catch(() => redis?.disconnect());
      await telemetry.shutdown(Math.max(flushShareMs, deadline - Date.now()));
      await server.close();
    })();
    return stopping;
  };

  let closed: Promise<void>;
  if (!http) {
    const stdio = serveStdio(server, { maxLineBytes: settings.MCP_MAX_BODY_BYTES, write: protocolWrite });
    closed = stdio.closed.then(() => stop());
  } else {
    const [{ httpOptions }, , , { startHttp }] = await (httpModules as NonNullable<typeof httpModules>);
    httpHandle = await startHttp(server, httpOptions(settings));
    closed = httpHandle.closed;
    logger.info({ url: httpHandle.url }, 'listening');
  }

  if (options.handleSignals) {
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      if (++signals === 1) {
        logger.info({ signal }, 'signal received: draining');
        void stop().then(() => process.exit(0));
        return;
      }
      // A second signal during the drain stops now, but not before the buffered spans and
      // metrics are exported (within the flush share of the budget).
      logger.warn({ signal }, 'second signal: exporting buffered telemetry, then exiting');
      void telemetry.flush(Math.max(flushShareMs, 1000)).finally(() => process.exit(1));
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    guardProcess(logger, stop);
  }
  return { server, settings, url: httpHandle?.url, stop, closed };
}

/**
 * What a stray failure in a plugin (or in us) does to the process. A promise rejected with
 * nobody listening is a bug where it was made, but the state it leaves is that promise's
 * alone: it is logged and every other client goes on being served. An exception thrown
 * with nothing on the stack to catch it may have stopped a function half-way through
 * changing shared state, so the process drains (in-flight calls finish, within
 * MCP_SHUTDOWN_TIMEOUT_MS) and exits with code 1, for the supervisor to restart it.
 */
function guardProcess(logger: Logger, stop: () => Promise<void>): void {
  process.on('unhandledRejection', (reason) => {
    logger.error(
      { err: reason },
      'unhandled promise rejection (a bug in a plugin or the server); still serving',
    );
  });
  let failing = false;
  process.on('uncaughtException', (err) => {
    if (failing) {
      logger.fatal({ err }, 'uncaught exception while draining; exiting now');
      process.exit(1);
    }
    failing = true;
    logger.fatal(
      { err },
      'uncaught exception: the process state may be corrupt; draining, then exiting with code 1',
    );
    void stop().finally(() => process.exit(1));
  });
}

function stripUndefined(o: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}
