/**
 * Plugins are folders under `plugins/`, each exporting one definition made with
 * `definePlugin`: a name, a zod schema for its own `MCP_<PLUGIN>_*` settings, a `register`
 * step that adds tools, resources and prompts, and an optional `doctor` check.
 */
import type { Logger } from 'pino';
import type { z } from 'zod';
import { InternalCode, ToolkitError } from '../base/errors.ts';
import type { HttpRoute } from '../base/http-route.ts';
import type { Middleware } from '../protocol/middleware.ts';
import type { Definition } from '../registry/define.ts';
import type { ListKind } from '../registry/registry.ts';

/** What `register` gets: the ways a plugin adds to the server. */
export interface PluginApp {
  /** Adds a tool, resource, resource template or prompt made with the `define*` functions. */
  add(...defs: Definition[]): void;
  /** Removes a definition at run time (clients get a list_changed notification). */
  remove(kind: Definition['kind'], key: string): boolean;
  /** Tells subscribed clients that a resource changed (`notifications/resources/updated`). */
  notifyResourceUpdated(uri: string): void;
  /** Tells clients a list changed for a reason the registry cannot see. */
  notifyListChanged(kind: ListKind): void;
  /**
   * Adds middleware: hooks per MCP method (`onCallTool`, `onReadResource`, `onRequest`, ...)
   * run in registration order around the handlers. See docs/plugins.md, "Middleware".
   */
  use(middleware: Middleware): void;
  /**
   * Runs `fn` once every plugin has registered, before the server accepts traffic (open a
   * pool, warm a cache). A throw stops start-up naming the plugin (exit code 2 from the CLI).
   * See docs/plugins.md, "Lifecycle".
   */
  onReady(fn: () => void | Promise<void>): void;
  /**
   * Runs `fn` at shutdown, after the calls in flight have finished, in reverse registration
   * order and within MCP_SHUTDOWN_TIMEOUT_MS (close a pool, stop a watcher). One that hangs is
   * cut off and logged; one that throws is logged.
   */
  onClose(fn: () => void | Promise<void>): void;
  /**
   * Runs `fn` with the id of each 2025-wire session of this process that ends: closed by
   * its client (HTTP DELETE, the stdio connection ended) or expired after
   * MCP_SESSION_IDLE_MS (sessions kept in memory). Release what you keep per session.
   */
  onSessionEnd(fn: (sessionId: string) => void): void;
  /**
   * Declares an HTTP route (a webhook, an admin page) that the HTTP transport serves beside
   * the MCP endpoint, behind the same auth unless `auth: false`, rate-limited, traced and
   * logged; not served on stdio. A path the server uses, or another plugin's route, stops
   * start-up naming both. See docs/plugins.md, "HTTP routes".
   */
  httpRoute(route: HttpRoute): void;
  /** The plugin's own logger (stderr). */
  readonly logger: Logger;
}

/**
 * What a failed check means, and so what the server does about it (docs/plugins.md, "doctor
 * and readiness"):
 * - `dependency` (the default): something that can come back by itself, an API or a service
 *   being down. `/readyz` answers 503 while it fails (re-checked at most every 10 s); start-up
 *   goes on.
 * - `config`: a setting that can never work without a change (a root that is not writable, a
 *   health operation that does not exist). Start-up stops with exit code 2 and the check's
 *   name and detail; `/readyz` does not report it.
 * - `advice`: the plugin works around it by itself (leaves the affected tools out and logs it
 *   once at start); only `mcp-toolkit doctor` reports it.
 */
export type DoctorCheckKind = 'dependency' | 'config' | 'advice';

export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail?: string;
  /** What a failure of this check does; `dependency` when absent. See DoctorCheckKind. */
  kind?: DoctorCheckKind;
}

/** A plugin's settings schema: an object whose camelCase keys name `MCP_<PLUGIN>_*` variables. */
export type SettingsSchema = z.ZodObject<z.ZodRawShape>;

/** What `register` and `doctor` receive: the schema's parsed, frozen output (`{}` without one). */
export type PluginSettings<Schema extends SettingsSchema | undefined> = Schema extends SettingsSchema
  ? Readonly<z.output<Schema>>
  : Readonly<Record<string, never>>;

/** A plugin, as `definePlugin` returns it and `MCP_PLUGINS` loads it. */
export interface PluginDefinition<S extends object = Record<string, unknown>> {
  /** Lower-case letters, digits and `-`; its settings are `MCP_<NAME>_*`. */
  readonly name: string;
  readonly description?: string;
  /**
   * Guidance for the model on how to use this plugin's tools, sent in the server's
   * `instructions` after MCP_SERVER_INSTRUCTIONS and the instructions of plugins loaded
   * before it. A function receives the plugin's parsed settings (say, to mention read-only mode);
   * typed `never` here so that every plugin fits one list (PluginSpec types it for the author).
   */
  readonly instructions?: string | ((settings: never) => string | undefined);
  /** Settings schema with camelCase keys: `readOnly` reads `MCP_<NAME>_READ_ONLY`. */
  readonly settings?: SettingsSchema;
  register(app: PluginApp, settings: S): void | Promise<void>;
  /** Checks for `mcp-toolkit doctor`, start-up (`config` ones) and `/readyz` (`dependency` ones). */
  doctor?(settings: S): DoctorCheck[] | Promise<DoctorCheck[]>;
  /** Files outside the plugin's folder that `mcp-toolkit dev` watches (see PluginSpec). */
  devWatch?(settings: S): readonly string[];
}

/** A plugin as `MCP_PLUGINS` loaded it: its definition and its parsed settings. */
export interface LoadedPlugin {
  definition: PluginDefinition<Record<string, unknown>>;
  settings: Record<string, unknown>;
}

/** What `definePlugin` takes: `register` and `doctor` get the settings typed from the schema. */
export interface PluginSpec<Schema extends SettingsSchema | undefined> {
  /** Lower-case letters, digits and `-`, starting with a letter (at most 40); its settings are `MCP_<NAME>_*`. */
  readonly name: string;
  readonly description?: string;
  /**
   * Guidance for the model on how to use this plugin's tools, sent in the server's
   * `instructions` after MCP_SERVER_INSTRUCTIONS and the instructions of plugins loaded
   * before it. A function receives the plugin's parsed settings (say, to mention read-only mode).
   */
  readonly instructions?: string | ((settings: PluginSettings<Schema>) => string | undefined);
  /** zod object with camelCase keys: `readOnly` reads `MCP_<NAME>_READ_ONLY`. Values arrive as strings. */
  readonly settings?: Schema;
  register(app: PluginApp, settings: PluginSettings<Schema>): void | Promise<void>;
  /** Checks for `mcp-toolkit doctor`, start-up (`config` ones) and `/readyz` (`dependency` ones). */
  doctor?(settings: PluginSettings<Schema>): DoctorCheck[] | Promise<DoctorCheck[]>;
  /**
   * Files outside the plugin's own folder that its tools are built from (a document read at
   * start-up, say), relative to the working directory: `mcp-toolkit dev` watches them too and
   * reloads the plugins when one changes.
   */
  devWatch?(settings: PluginSettings<Schema>): readonly string[];
}

const PLUGIN_NAME_RE = /^[a-z][a-z0-9-]{0,39}$/;

/**
 * Declares a plugin. The settings passed to `register` and `doctor` are typed from the
 * `settings` schema: no type argument, no cast.
 *
 * @example
 * export default definePlugin({
 *   name: 'hello',
 *   settings: z.object({ greeting: z.string().default('Hello') }),
 *   register(app, { greeting }) { // greeting: string
 *     app.add(defineTool({ name: 'hello', description: 'Greets', input: z.object({ who: z.string() }) },
 *       async ({ who }) => `${greeting}, ${who}!`));
 *   },
 * });
 */
export function definePlugin<const Schema extends SettingsSchema | undefined = undefined>(
  def: PluginSpec<Schema>,
): PluginDefinition<PluginSettings<Schema>> {
  if (typeof def.name !== 'string' || !PLUGIN_NAME_RE.test(def.name)) {
    throw new ToolkitError(
      InternalCode.PluginInvalid,
      `Plugin name ${JSON.stringify(def.name)} is invalid: use lower-case letters, digits and "-", starting with a letter`,
    );
  }
  if (typeof def.register !== 'function') {
    throw new ToolkitError(InternalCode.PluginInvalid, `Plugin "${def.name}" has no register function`);
  }
  if (def.instructions !== undefined && !['string', 'function'].includes(typeof def.instructions)) {
    throw new ToolkitError(
      InternalCode.PluginInvalid,
      `Plugin "${def.name}": instructions must be a string or a function of the plugin's settings`,
    );
  }
  return Object.freeze(def) as PluginDefinition<PluginSettings<Schema>>;
}

/** `readOnly` → `READ_ONLY`; the environment variable is `MCP_<PLUGIN>_READ_ONLY`. */
export function settingEnvName(plugin: string, key: string): string {
  const suffix = key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
  return `MCP_${plugin.replaceAll('-', '_').toUpperCase()}_${suffix}`;
}

/**
 * The server's `instructions`: MCP_SERVER_INSTRUCTIONS first, then each plugin's own in load
 * order, separated by a blank line; blank parts are left out, and nothing at all gives
 * undefined (the field is then omitted from initialize and server/discover).
 *
 * @example
 * composeInstructions('Be brief.', [{ definition: notesPlugin, settings: {} }]);
 */
export function composeInstructions(
  serverInstructions: string | undefined,
  plugins: readonly {
    definition: PluginDefinition<Record<string, unknown>>;
    settings: Record<string, unknown>;
  }[],
): string | undefined {
  const parts = [serverInstructions];
  for (const { definition, settings } of plugins) {
    const own = definition.instructions;
    parts.push(typeof own === 'function' ? own(settings as never) : own);
  }
  const text = parts
    .map((p) => p?.trim() ?? '')
    .filter((p) => p !== '')
    .join('\n\n');
  return text === '' ? undefined : text;
}
