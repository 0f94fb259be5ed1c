/**
 * The server's public entry points. `createServer(options)` assembles a server from plugins
 * (definitions or names), a settings object, a logger and a transport, starts that transport
 * and hands back a handle whose `close()` drains like SIGTERM does. `serve(options)` is the
 * same with the environment as the default source of settings and, when asked, the signal
 * handling of a process; the CLI is a thin layer over it.
 */
import type { Logger } from 'pino';
import type { JsonRpcMessage } from '../base/jsonrpc.ts';
import type { Identity } from '../base/types.ts';
import { processEnvironment, type Settings, type SettingsInput } from '../config/settings.ts';
import { createConnection } from '../transports/connection.ts';
import type { HttpHandle } from '../transports/http/server.ts';
import { serveStdio } from '../transports/stdio.ts';
import { assemble, liveCounts, type PluginRef, type TransportKind } from './assemble.ts';
import type { McpServer } from './server.ts';
import { httpOptions, stdioOptions } from './transport-options.ts';

export type { PluginRef, TransportKind };

export interface ServerOptions {
  /** The plugins: `definePlugin(...)` results, or names and module paths as MCP_PLUGINS takes them. Default: MCP_PLUGINS. */
  plugins?: readonly PluginRef[];
  /** Settings by MCP_* name (`{ MCP_AUTH: 'api_key', MCP_API_KEYS: ['ci:a-long-random-key'] }`), plugins' MCP_<PLUGIN>_* and OTEL_* too. */
  settings?: SettingsInput;
  /** An environment to read settings from, below `settings`: createServer reads none unless given. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The logger; default: pino on stderr (MCP_LOG_LEVEL, MCP_LOG_FORMAT). */
  logger?: Logger;
  /** Default: MCP_TRANSPORT. */
  transport?: TransportKind;
}

export interface ServeOptions extends Omit<ServerOptions, 'env'> {
  /** Environment to read MCP_* settings from; default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Values that override the environment and `settings` (CLI flags). */
  overrides?: Readonly<Record<string, string | undefined>>;
  /** Install SIGTERM/SIGINT handlers (the CLI does; tests usually do not). */
  handleSignals?: boolean;
}

/** What `connect()` takes: where the server's messages go, and who the client is. */
export interface InProcessOptions {
  /** Every message the server sends on this connection: responses, notifications, its own requests. */
  onMessage: (message: JsonRpcMessage | JsonRpcMessage[]) => void;
  /**
   * The caller's identity, as the auth layer would set it (per-tool scopes are checked against
   * it). Nothing on this connection is authenticated: it is the embedding program's own client.
   */
  identity?: Identity;
}

/**
 * One client connected in-process, as a stdio client is: one 2025-wire session for the
 * connection's life (2026-wire messages need none), messages handled concurrently.
 */
export interface InProcessConnection {
  /**
   * Hands the server one parsed JSON-RPC message or batch; resolves once it has been answered
   * (through `onMessage`), or handled when no answer is due. Never rejects: a bad message
   * gets its JSON-RPC error.
   */
  send(message: unknown): Promise<void>;
  /** Resolves when every message sent so far has been answered. */
  drain(): Promise<void>;
  /** The client leaves: its session ends and the requests still running for it are cancelled. */
  close(): void;
}

export interface RunningServer {
  readonly server: McpServer;
  readonly settings: Settings;
  /** The MCP endpoint URL (HTTP transport only). */
  readonly url: string | undefined;
  /** Stops accepting, lets in-flight calls finish (MCP_SHUTDOWN_TIMEOUT_MS), runs the plugins' onClose hooks, flushes spans. */
  close(): Promise<void>;
  /** The same as close(). */
  stop(): Promise<void>;
  /** Resolves when the server has stopped (stdin EOF on stdio, close() on HTTP). */
  readonly closed: Promise<void>;
  /**
   * Connects a client in-process, whatever the transport: messages go straight to the server,
   * no socket and no framing (the test kit's `TestClient` drives servers this way).
   *
   * @example
   * const received: JsonRpcMessage[] = [];
   * const connection = running.connect({ onMessage: (m) => received.push(m) });
   * await connection.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
   * connection.close();
   */
  connect(options: InProcessOptions): InProcessConnection;
}

/** The handle's `connect()` over an assembled server (tests hand-assemble servers with fake clocks). */
export function inProcessConnector(server: McpServer): RunningServer['connect'] {
  return ({ onMessage, identity }) => {
    const connection = createConnection(server, onMessage, { identity });
    return {
      send: (message) => connection.receive(message),
      drain: () => connection.drain(),
      close: () => connection.close(),
    };
  };
}

/**
 * Assembles a server and starts its transport. Only the settings given are read: no
 * environment unless `env` is passed.
 *
 * @example
 * const running = await createServer({
 *   plugins: [notesPlugin],
 *   settings: { MCP_HTTP_PORT: 0, MCP_AUTH: 'api_key', MCP_API_KEYS: ['ci:a-long-random-key'] },
 *   transport: 'http',
 * });
 * await running.close();
 */
export async function createServer(options: ServerOptions = {}): Promise<RunningServer> {
  return start(options, {});
}

/**
 * Starts the server the environment (and `settings`) describe, as `mcp-toolkit run` does.
 *
 * @example
 * const running = await serve({ env: { MCP_TRANSPORT: 'http', MCP_HTTP_PORT: '0' } });
 * console.error(running.url);
 */
export async function serve(options: ServeOptions = {}): Promise<RunningServer> {
  return start(
    { ...options, env: options.env ?? processEnvironment() },
    { overrides: options.overrides, handleSignals: options.handleSignals },
  );
}

async function start(
  options: ServerOptions,
  extra: { overrides?: SettingsInput; handleSignals?: boolean },
): Promise<RunningServer> {
  const assembled = await assemble({ ...options, overrides: extra.overrides });
  const { transport, server, settings, logger, telemetry, flushShareMs } = assembled;

  let httpHandle: HttpHandle | undefined;
  let closed: Promise<void>;
  const stop = () =>
    assembled.stop(httpHandle ? (budgetMs) => (httpHandle as HttpHandle).close(budgetMs) : undefined);
  if (transport === 'stdio') {
    if (server.routes.length > 0) {
      logger.info(
        { routes: server.routes.map((r) => `${r.method} ${r.url}`) },
        `plugin HTTP routes are not served on stdio (${server.routes.length}); run with the HTTP transport to serve them`,
      );
    }
    const stdio = serveStdio(server, { ...stdioOptions(settings), write: assembled.protocolWrite });
    closed = stdio.closed.then(() => stop());
  } else if (transport === 'http') {
    // Loaded only here: a stdio server for a desktop agent starts without Fastify.
    const { startHttp } = await import('../transports/http/server.ts');
    try {
      httpHandle = await startHttp(server, httpOptions(settings));
    } catch (err) {
      // Nothing listens (a port in use): what the plugins opened is closed again.
      await assembled.stop().catch(() => {});
      throw err;
    }
    closed = httpHandle.closed;
    const handle = httpHandle;
    telemetry.watch(liveCounts(server, () => handle.streamCount()));
    logger.info({ url: httpHandle.url }, 'listening');
  } else {
    // Nothing to start: the server is mounted elsewhere; close() ends it.
    let resolveClosed!: () => void;
    closed = new Promise<void>((r) => {
      resolveClosed = r;
    });
    const close = () => stop().then(resolveClosed);
    return {
      server,
      settings,
      url: undefined,
      close,
      stop: close,
      closed,
      connect: inProcessConnector(server),
    };
  }

  if (extra.handleSignals) {
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      if (++signals === 1) {
        // SIGTERM is a platform's (a rollout, a scale-in): the load balancer is told first
        // (/readyz 503) while everything is still served. SIGINT, a person at a terminal, stops now.
        const delayMs = signal === 'SIGTERM' && httpHandle ? settings.MCP_SHUTDOWN_DELAY_MS : 0;
        logger.info(
          { signal, delayMs },
          delayMs > 0 ? 'signal received: /readyz 503, still serving' : 'signal received: draining',
        );
        void (async () => {
          if (delayMs > 0) {
            await httpHandle?.announceDrain(delayMs);
            logger.info({ signal }, 'draining');
          }
          await stop();
          process.exit(0);
        })();
        return;
      }
      // A second signal during the drain stops now, but not before the tasks still running
      // are recorded as failed (else they would read `working` until the lease lapses) and
      // the buffered spans and metrics are exported (within the flush share of the budget).
      logger.warn(
        { signal },
        'second signal: exporting buffered telemetry and failing running tasks, then exiting',
      );
      const waitMs = Math.max(flushShareMs, 1000);
      void Promise.all([
        Promise.race([server.tasks.close(), new Promise((r) => setTimeout(r, waitMs).unref())]),
        telemetry.flush(waitMs),
      ]).finally(() => process.exit(1));
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    guardProcess(logger, stop);
  }
  return {
    server,
    settings,
    url: httpHandle?.url,
    close: stop,
    stop,
    closed,
    connect: inProcessConnector(server),
  };
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
