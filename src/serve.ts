/**
 * `serve()`, the single entry point: settings → logging → plugins → server → transport,
 * plus signal handling for a graceful stop. The CLI is a thin layer over it.
 */
import { mkdirSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import { parseSettings, type Settings } from './config/settings.ts';
import { loadPlugins } from './plugin-loader.ts';
import { createServer, type McpServer } from './server.ts';
import { type HttpHandle, startHttp } from './transports/http/server.ts';
import { serveStdio } from './transports/stdio.ts';

export interface ServeOptions {
  /** Environment to read MCP_* settings from (default: process.env, read by the CLI). */
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
  /** Stops accepting, lets in-flight calls finish (MCP_SHUTDOWN_TIMEOUT_MS), closes streams. */
  stop(): Promise<void>;
  /** Resolves when the server has stopped (stdin EOF on stdio, stop() on HTTP). */
  readonly closed: Promise<void>;
}

export function createLogger(settings: Settings): Logger {
  return pino(
    { level: settings.MCP_LOG_LEVEL, base: { service: settings.MCP_SERVER_NAME } },
    pino.destination(2),
  );
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
  const logger = createLogger(settings);
  const plugins = await loadPlugins(settings.MCP_PLUGINS, env);
  const server = await createServer({ settings, logger, plugins });

  let http: HttpHandle | undefined;
  let closed: Promise<void>;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      logger.info('shutting down');
      if (http) await http.close(settings.MCP_SHUTDOWN_TIMEOUT_MS);
      await server.close();
    })();
    return stopping;
  };

  if (settings.MCP_TRANSPORT === 'stdio') {
    const stdio = serveStdio(server, { maxLineBytes: settings.MCP_MAX_BODY_BYTES });
    closed = stdio.closed.then(() => stop());
  } else {
    http = await startHttp(server, settings);
    closed = http.closed;
    logger.info({ url: http.url }, 'listening');
  }

  if (options.handleSignals) {
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal }, 'signal received');
      void stop().then(() => process.exit(0));
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  return { server, settings, url: http?.url, stop, closed };
}

function stripUndefined(o: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

/** Creates the filesystem root when it is the default one and missing (npm start on a fresh clone). */
export function ensureDir(path: string): void {
  mkdirSync(path, { recursive: true });
}
