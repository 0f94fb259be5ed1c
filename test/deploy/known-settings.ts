/**
 * The one source of truth the deploy files are checked against: the core settings schema
 * (src/config/settings.ts) plus every bundled plugin's `MCP_<PLUGIN>_*` schema, read the
 * way the server reads them. A renamed setting, or a value the schema refuses, fails the
 * deploy tests.
 */
import { BUNDLED_PLUGINS } from '../../scripts/bundled-plugins.ts';
import { parseSettings, SETTING_NAMES, type Settings } from '../../src/config/settings.ts';
import { type PluginDefinition, settingEnvName } from '../../src/plugin/define.ts';
import { importPlugin, parsePluginSettings } from '../../src/plugin/loader.ts';

export interface KnownSettings {
  /** Every setting name, core and plugin. */
  readonly names: ReadonlySet<string>;
  /** The defaults of the core settings (what the server uses when a variable is unset). */
  readonly defaults: Settings;
  /**
   * Parses `env` with the core schema and every plugin's schema, as the server would at
   * start-up; throws the server's own message (naming the variable) when a value is refused.
   */
  parse(env: Readonly<Record<string, string>>): void;
}

let cached: Promise<KnownSettings> | undefined;

async function load(): Promise<KnownSettings> {
  const names = new Set<string>(SETTING_NAMES);
  const plugins: PluginDefinition<Record<string, unknown>>[] = [];
  // The bundled plugins only: a user's own plugin in plugins/ (with a required setting, say)
  // is not the deploy files' business.
  for (const name of BUNDLED_PLUGINS) {
    const plugin = await importPlugin(name);
    plugins.push(plugin);
    for (const key of Object.keys(plugin.settings?.shape ?? {})) names.add(settingEnvName(plugin.name, key));
  }
  return {
    names,
    defaults: parseSettings({}),
    parse(env) {
      parseSettings(env);
      for (const plugin of plugins) parsePluginSettings(plugin, env);
    },
  };
}

/** Loads (once per test process) the names and parsers of every setting. */
export function knownSettings(): Promise<KnownSettings> {
  cached ??= load();
  return cached;
}

/** The names in `names` that are not settings, for a readable assertion message. */
export function unknownNames(names: Iterable<string>, known: KnownSettings): string[] {
  return [...names].filter((n) => !known.names.has(n));
}
