/**
 * Loads the plugins `MCP_PLUGINS` names: a bare name is a folder under `plugins/`, anything
 * with a slash or a leading dot is a module path (relative to the working directory). Each
 * plugin's own `MCP_<PLUGIN>_*` settings are parsed here with its zod schema.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { maskSecret } from '../base/env.ts';
import { InternalCode, ToolkitError } from '../base/errors.ts';
import type { LoadedPlugin } from './define.ts';
import { type PluginDefinition, settingEnvName } from './define.ts';
import { pluginImportError } from './errors.ts';

export const PLUGINS_DIR = fileURLToPath(new URL('../../plugins/', import.meta.url));

function isPluginDefinition(value: unknown): value is PluginDefinition<Record<string, unknown>> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { name?: unknown }).name === 'string' &&
    typeof (value as { register?: unknown }).register === 'function'
  );
}

/** Where a plugin reference points. */
export function resolvePluginPath(ref: string, cwd: string = process.cwd()): string {
  if (ref.startsWith('.') || ref.includes('/') || isAbsolute(ref))
    return isAbsolute(ref) ? ref : resolve(cwd, ref);
  if (!/^[a-z][a-z0-9-]*$/.test(ref)) {
    throw new ToolkitError(
      InternalCode.PluginNotFound,
      `MCP_PLUGINS entry "${ref}" is neither a plugin name (lower-case letters, digits, -) nor a path`,
    );
  }
  // The project's own plugins/ first (an installed package runs in the user's project), then
  // the plugins bundled with the toolkit (the same folder in a clone).
  for (const dir of [resolve(cwd, 'plugins'), PLUGINS_DIR]) {
    for (const file of ['index.ts', 'index.js']) {
      const candidate = resolve(dir, ref, file);
      if (existsSync(candidate)) return candidate;
    }
  }
  throw new ToolkitError(
    InternalCode.PluginNotFound,
    `Plugin "${ref}" not found: expected plugins/${ref}/index.ts (or index.js) in ${cwd}, or a bundled plugin (set MCP_PLUGINS to names under plugins/ or module paths)`,
  );
}

/** Longest part of a bad value a start-up error shows (a setting may hold a whole JSON document). */
const SHOWN_CHARS = 200;

/** A bad setting's value as an error shows it: a secret masked, a long one cut. */
function shownValue(name: string, value: string | undefined): string {
  const shown = JSON.stringify(maskSecret(name, value ?? '') ?? '');
  return shown.length > SHOWN_CHARS
    ? `${shown.slice(0, SHOWN_CHARS)}... (${shown.length} characters)`
    : shown;
}

/** Imports one plugin module and returns its definition. */
export async function importPlugin(
  ref: string,
  cwd?: string,
): Promise<PluginDefinition<Record<string, unknown>>> {
  const path = resolvePluginPath(ref, cwd);
  if (!existsSync(path)) {
    throw new ToolkitError(
      InternalCode.PluginNotFound,
      `Plugin module "${ref}" not found: no file at ${path}`,
    );
  }
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (err) {
    throw pluginImportError(ref, path, err);
  }
  const def = mod.default ?? mod.plugin;
  if (!isPluginDefinition(def)) {
    throw new ToolkitError(
      InternalCode.PluginInvalid,
      `Plugin "${ref}" must export a definePlugin(...) result as its default export`,
    );
  }
  return def;
}

/** Parses a plugin's `MCP_<PLUGIN>_*` settings; errors name each variable, its value and what it accepts. */
export function parsePluginSettings(
  def: PluginDefinition<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, unknown> {
  if (!def.settings) return {};
  const input: Record<string, string | undefined> = {};
  const envNames: Record<string, string> = {};
  for (const key of Object.keys(def.settings.shape)) {
    const name = settingEnvName(def.name, key);
    envNames[key] = name;
    input[key] = env[name] === '' ? undefined : env[name];
  }
  const result = def.settings.safeParse(input);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => {
      const key = String(issue.path[0] ?? '');
      const name = envNames[key] ?? `MCP_${def.name.toUpperCase()}_*`;
      const described = (def.settings?.shape[key] as { description?: string } | undefined)?.description;
      // Unset (or empty) and required is "not set", never a value the user did not give.
      if (input[key] === undefined && key in envNames && issue.code === 'invalid_type') {
        return `${name} is not set: plugin ${def.name} requires it${described ? ` (${described})` : ''}`;
      }
      return `${name}=${shownValue(name, env[name])} is invalid: ${issue.message}`;
    });
    throw new ToolkitError(InternalCode.InvalidSetting, lines.join('\n'));
  }
  return Object.freeze(result.data as Record<string, unknown>);
}

/** Loads every plugin listed, in order; a name listed twice is refused. */
export async function loadPlugins(
  refs: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd?: string,
): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  for (const ref of refs) {
    const definition = await importPlugin(ref, cwd);
    if (loaded.some((p) => p.definition.name === definition.name)) {
      throw new ToolkitError(
        InternalCode.PluginInvalid,
        `Plugin "${definition.name}" is listed twice in MCP_PLUGINS`,
      );
    }
    loaded.push({ definition, settings: parsePluginSettings(definition, env) });
  }
  return loaded;
}

/** The `MCP_<PLUGIN>_*` variables the loaded plugins declare. */
export function pluginSettingNames(plugins: readonly LoadedPlugin[]): string[] {
  return plugins.flatMap(({ definition }) =>
    Object.keys(definition.settings?.shape ?? {}).map((key) => settingEnvName(definition.name, key)),
  );
}
