/**
 * Plugins are folders under `plugins/`, each exporting one definition made with
 * `definePlugin`: a name, a zod schema for its own `MCP_<PLUGIN>_*` settings, a `register`
 * step that adds tools, resources and prompts, and an optional `doctor` check.
 */
import type { Logger } from 'pino';
import type { z } from 'zod';
import { InternalCode, ToolkitError } from './protocol/errors.ts';
import type { Middleware } from './protocol/middleware.ts';
import type { Definition } from './registry/define.ts';
import type { ListKind } from './registry/registry.ts';

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
  /** The plugin's own logger (stderr). */
  readonly logger: Logger;
}

export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail?: string;
}

export interface PluginDefinition<S = Record<string, unknown>> {
  /** Lower-case letters, digits and `-`; its settings are `MCP_<NAME>_*`. */
  readonly name: string;
  readonly description?: string;
  /**
   * Guidance for the model on how to use this plugin's tools, sent in the server's
   * `instructions` after MCP_SERVER_INSTRUCTIONS and the instructions of plugins loaded
   * before it. A function receives the plugin's parsed settings (say, to mention read-only mode).
   */
  readonly instructions?: string | ((settings: S) => string | undefined);
  /** Settings schema with camelCase keys: `readOnly` reads `MCP_<NAME>_READ_ONLY`. */
  readonly settings?: z.ZodObject<z.ZodRawShape>;
  register(app: PluginApp, settings: S): void | Promise<void>;
  /** Start-up checks for `mcp-toolkit doctor` (and `/readyz`). */
  doctor?(settings: S): DoctorCheck[] | Promise<DoctorCheck[]>;
}

const PLUGIN_NAME_RE = /^[a-z][a-z0-9-]{0,39}$/;

/**
 * Declares a plugin.
 *
 * @example
 * export default definePlugin({
 *   name: 'hello',
 *   settings: z.object({ greeting: z.string().default('Hello') }),
 *   register(app, { greeting }) {
 *     app.add(defineTool({ name: 'hello', description: 'Greets', input: z.object({ who: z.string() }) },
 *       async ({ who }) => `${greeting}, ${who}!`));
 *   },
 * });
 */
export function definePlugin<S extends Record<string, unknown> = Record<string, unknown>>(
  def: PluginDefinition<S>,
): PluginDefinition<S> {
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
  return Object.freeze(def);
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
    parts.push(typeof own === 'function' ? own(settings) : own);
  }
  const text = parts
    .map((p) => p?.trim() ?? '')
    .filter((p) => p !== '')
    .join('\n\n');
  return text === '' ? undefined : text;
}
