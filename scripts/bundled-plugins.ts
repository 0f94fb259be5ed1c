/**
 * The plugins that ship with the toolkit: the one list the build (scripts/build.ts), the
 * settings table (scripts/settings-table.ts) and docs/plugins.md ("The bundled plugins",
 * compared by test/docs/bundled-plugins.test.ts) go by. Any other folder under plugins/ is
 * the clone owner's own plugin: served from the clone, never built into the package (the
 * container image, built from the clone, carries it).
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

/**
 * Bundled plugins that are test fixtures: in the clone and the package, never in the container
 * image (.dockerignore leaves them out; docs/plugins.md says so in their row).
 */
export const FIXTURE_PLUGINS: readonly string[] = ['conformance'];

/** The plugins the container image carries: the bundled ones without the fixtures. */
export const IMAGE_PLUGINS: readonly string[] = BUNDLED_PLUGINS.filter((p) => !FIXTURE_PLUGINS.includes(p));

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
