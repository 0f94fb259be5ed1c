/**
 * Running the plugins' `register` steps so that a failure says which plugin and where: a
 * register() that throws is reported with the plugin's name and the line in its code, and a
 * tool, resource, template or prompt registered twice names both plugins that registered it.
 */

import { InternalCode, ToolkitError } from '../base/errors.ts';
import type { Definition } from '../registry/define.ts';
import type { Registry } from '../registry/registry.ts';
import type { PluginApp, PluginDefinition } from './define.ts';
import { pluginRegisterError } from './errors.ts';

function identify(def: Definition): { what: string; key: string } {
  if (def.kind === 'tool') return { what: 'tool', key: def.name };
  if (def.kind === 'prompt') return { what: 'prompt', key: def.name };
  if (def.kind === 'resource') return { what: 'resource', key: def.uri };
  return { what: 'resource template', key: def.template.source };
}

/** Adds definitions on behalf of plugins, remembering which plugin added what. */
export interface OwnedRegistry {
  add(plugin: string, def: Definition): void;
}

/**
 * @example
 * const owned = ownedRegistry(registry);
 * owned.add('hello', greetTool); // a second 'greet' from another plugin names both
 */
export function ownedRegistry(registry: Registry): OwnedRegistry {
  const owners = new Map<string, string>();
  return {
    add(plugin, def) {
      const { what, key } = identify(def);
      const id = `${def.kind}\0${key}`;
      try {
        registry.add(def);
      } catch (err) {
        const owner = owners.get(id);
        if (!(err instanceof ToolkitError) || err.code !== InternalCode.DuplicateName || !owner) throw err;
        const detail =
          owner === plugin
            ? `plugin "${plugin}" registers it twice`
            : `registered by plugin "${owner}" and again by plugin "${plugin}"; rename one, or leave one plugin out of MCP_PLUGINS`;
        throw new ToolkitError(InternalCode.DuplicateName, `Duplicate ${what} "${key}": ${detail}`);
      }
      owners.set(id, plugin);
    },
  };
}

/** Runs one plugin's `register`; what it throws comes back naming the plugin and the line. */
export async function registerPlugin(
  definition: PluginDefinition<Record<string, unknown>>,
  app: PluginApp,
  settings: Record<string, unknown>,
): Promise<void> {
  try {
    await definition.register(app, settings);
  } catch (err) {
    throw pluginRegisterError(definition.name, err);
  }
}
