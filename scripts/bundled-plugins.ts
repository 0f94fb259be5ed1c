/**
 * The plugins that ship with the toolkit: the one list the build (scripts/build.ts), the
 * settings table (scripts/settings-table.ts) and docs/plugins.md ("The bundled plugins",
 * compared by test/docs/bundled-plugins.test.ts) go by. Any other folder under plugins/ is
 * the clone owner's own plugin: served from the clone, never built into the package.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** Folder names under plugins/, sorted. */
export const BUNDLED_PLUGINS: readonly string[] = [
  'audit-log',
  'conformance',
  'filesystem',
  'openapi',
  'proxy',
  'result-cache',
];

export interface PluginSelection {
  /** The bundled plugins, as folders under `pluginsDir`. */
  readonly bundled: readonly string[];
  /** The other folders under `pluginsDir`: left out of the package. */
  readonly leftOut: readonly string[];
}

/**
 * Splits the folders under `pluginsDir` into the bundled plugins and the rest. Throws when a
 * bundled plugin has no `index.ts` there (the list and the tree disagree).
 */
export function selectPlugins(pluginsDir: string): PluginSelection {
  for (const name of BUNDLED_PLUGINS) {
    if (!existsSync(path.join(pluginsDir, name, 'index.ts'))) {
      throw new Error(`bundled plugin "${name}" has no ${path.join(pluginsDir, name, 'index.ts')}`);
    }
  }
  const leftOut = readdirSync(pluginsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !BUNDLED_PLUGINS.includes(d.name))
    .map((d) => d.name)
    .sort();
  return { bundled: BUNDLED_PLUGINS, leftOut };
}
