/**
 * Assembles one server from settings and plugins: the registry, the dispatcher, the hub,
 * the session store and the state codec. Transports take the result; nothing here listens.
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Settings } from './config/settings.ts';
import type { PluginApp, PluginDefinition } from './plugin.ts';
import { Dispatcher, type DispatcherOptions } from './protocol/dispatcher.ts';
import { Hub } from './protocol/hub.ts';
import { notification } from './protocol/jsonrpc.ts';
import { createMemorySessionStore, type SessionStore } from './protocol/session.ts';
import { createStateCodec } from './protocol/state-codec.ts';
import { Registry } from './registry/registry.ts';

export const PACKAGE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface LoadedPlugin {
  definition: PluginDefinition<Record<string, unknown>>;
  settings: Record<string, unknown>;
}

export interface McpServer {
  readonly settings: Settings;
  readonly registry: Registry;
  readonly dispatcher: Dispatcher;
  readonly hub: Hub;
  readonly sessions: SessionStore;
  readonly logger: Logger;
  readonly plugins: readonly LoadedPlugin[];
  /** Tells subscribed sessions that a resource changed. */
  notifyResourceUpdated(uri: string): Promise<void>;
  close(): Promise<void>;
}

export interface CreateServerOptions {
  settings: Settings;
  plugins: readonly LoadedPlugin[];
  logger: Logger;
  sessions?: SessionStore;
  hub?: Hub;
  /** Hooks into the call path (auth scopes, per-tool limits, telemetry). */
  beforeTool?: DispatcherOptions['beforeTool'];
  observe?: DispatcherOptions['observe'];
}

/**
 * Builds the server and runs every plugin's `register` step.
 *
 * @example
 * const server = await createServer({ settings: parseSettings({}), plugins: [], logger: pino() });
 */
export async function createServer(options: CreateServerOptions): Promise<McpServer> {
  const { settings, logger } = options;
  const registry = new Registry();
  const hub = options.hub ?? new Hub();
  const sessions =
    options.sessions ??
    createMemorySessionStore({
      idleMs: settings.MCP_SESSION_IDLE_MS,
      maxSessions: settings.MCP_MAX_SESSIONS,
    });
  const codec = createStateCodec({ secret: settings.MCP_STATE_SECRET, ttlMs: settings.MCP_STATE_TTL_MS });

  const notifyResourceUpdated = async (uri: string) => {
    const message = notification('notifications/resources/updated', { uri });
    for (const id of hub.sessionIds()) {
      const session = hub.localSession(id) ?? (await sessions.get(id));
      if (session?.subscriptions.has(uri)) hub.sendToSession(id, message);
    }
    hub.publishToListeners(
      'notifications/resources/updated',
      (f) => f.resourceSubscriptions?.includes(uri) ?? false,
      {
        uri,
      },
    );
  };

  registry.onChange((kind) => {
    const method = `notifications/${kind}/list_changed`;
    hub.broadcastToSessions(notification(method));
    const key = `${kind}ListChanged` as 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged';
    hub.publishToListeners(method, (f) => f[key] === true);
  });

  for (const { definition, settings: pluginSettings } of options.plugins) {
    const app: PluginApp = {
      add: (...defs) => {
        for (const def of defs) registry.add(def);
      },
      remove: (kind, key) => registry.remove(kind, key),
      notifyResourceUpdated: (uri) => void notifyResourceUpdated(uri),
      notifyListChanged: (kind) => registry.notifyListChanged(kind),
      logger: logger.child({ plugin: definition.name }),
    };
    await definition.register(app, pluginSettings);
  }

  const dispatcher = new Dispatcher({
    registry,
    sessions,
    hub,
    codec,
    logger,
    serverInfo: { name: settings.MCP_SERVER_NAME, version: PACKAGE_VERSION },
    toolTimeoutMs: settings.MCP_TOOL_TIMEOUT_MS,
    inputTimeoutMs: settings.MCP_INPUT_TIMEOUT_MS,
    pageSize: settings.MCP_PAGE_SIZE,
    maxBatch: settings.MCP_MAX_BATCH,
    beforeTool: options.beforeTool,
    observe: options.observe,
  });

  return {
    settings,
    registry,
    dispatcher,
    hub,
    sessions,
    logger,
    plugins: options.plugins,
    notifyResourceUpdated,
    async close() {
      await sessions.close();
    },
  };
}
