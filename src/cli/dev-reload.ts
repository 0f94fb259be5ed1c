/**
 * Reloading plugins in place, for `mcp-toolkit dev`. ES modules cannot be unloaded, so each
 * reload imports the plugins afresh as a new generation: a module hook gives every file under
 * a watched folder, imported from a file of that generation, the generation's query string
 * (`?mcp-dev=3`), so a plugin's own files are read again while the toolkit and the
 * dependencies it imports stay shared. The new generation registers into a scratch registry
 * first; only when every plugin imports and registers without error does it replace the
 * definitions the server serves, in one batch: each list whose listing changed gets one
 * list_changed notification, a list that lists as before none.
 * Otherwise the error is reported with file and line and the last good version keeps serving.
 */
import { registerHooks } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { McpServer } from '../assembly/server.ts';
import type { PluginApp, PluginDefinition } from '../plugin/define.ts';
import { pluginImportError } from '../plugin/errors.ts';
import { createPluginLifecycle, type PluginLifecycle } from '../plugin/lifecycle.ts';
import { parsePluginSettings, resolvePluginPath } from '../plugin/loader.ts';
import { ownedRegistry, registerPlugin } from '../plugin/register.ts';
import type { Definition } from '../registry/define.ts';
import { type ListKind, Registry } from '../registry/registry.ts';

const PARAM = 'mcp-dev';

/** The folders whose files are reloaded: each plugin's own folder. */
export function pluginFolders(refs: readonly string[], cwd: string = process.cwd()): string[] {
  return [...new Set(refs.map((ref) => path.dirname(resolvePluginPath(ref, cwd))))];
}

let hooked: string[] | undefined;

/** Installs the module hook once per process; later calls add folders. */
function hook(folders: readonly string[]): void {
  const inside = (file: string) =>
    hooked!.some((dir) => file === dir || file.startsWith(`${dir}${path.sep}`));
  if (hooked) {
    hooked.push(...folders);
    return;
  }
  hooked = [...folders];
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      const parent = context.parentURL ? new URL(context.parentURL) : undefined;
      const generation = parent?.searchParams.get(PARAM);
      if (!generation || !resolved.url.startsWith('file:')) return resolved;
      const url = new URL(resolved.url);
      if (!inside(fileURLToPath(url))) return resolved;
      url.searchParams.set(PARAM, generation);
      return { ...resolved, url: url.href };
    },
  });
}

/** What the server serves now, as (kind, key) pairs: every definition came from a plugin. */
function served(registry: Registry): [Definition['kind'], string][] {
  return [
    ...registry.toolListing().map((t): [Definition['kind'], string] => ['tool', String(t.name)]),
    ...registry.resourceListing().map((r): [Definition['kind'], string] => ['resource', String(r.uri)]),
    ...registry
      .templateListing()
      .map((t): [Definition['kind'], string] => ['resource-template', String(t.uriTemplate)]),
    ...registry.promptListing().map((p): [Definition['kind'], string] => ['prompt', String(p.name)]),
  ];
}

export interface Reloader {
  /** Imports and registers every plugin afresh; resolves with what was served, or the error. */
  reload(): Promise<
    { ok: true; counts: Registry['counts']; changed: ListKind[] } | { ok: false; error: Error }
  >;
}

/**
 * @example
 * const reloader = createReloader(running.server, settings.MCP_PLUGINS, env);
 * await reloader.reload();
 */
export function createReloader(
  server: McpServer,
  refs: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Reloader {
  hook(pluginFolders(refs));
  let generation = 0;
  let warnedMiddleware = false;
  let warnedRoutes = false;
  // The generation serving now: its onClose hooks run once the next one has taken over.
  let current: Pick<PluginLifecycle, 'close'> = { close: (budgetMs) => server.closePlugins(budgetMs) };
  return {
    async reload() {
      generation++;
      const staged: Definition[] = [];
      const lifecycle = createPluginLifecycle(server.logger);
      // Until the swap, a plugin's adds go to the scratch registry; after it, to the server.
      let live = false;
      const scratch = ownedRegistry(new Registry());
      try {
        for (const ref of refs) {
          const file = resolvePluginPath(ref);
          const url = `${pathToFileURL(file).href}?${PARAM}=${generation}`;
          let mod: Record<string, unknown>;
          try {
            mod = (await import(url)) as Record<string, unknown>;
          } catch (err) {
            throw pluginImportError(ref, file, err);
          }
          const definition = (mod.default ?? mod.plugin) as PluginDefinition<Record<string, unknown>>;
          const settings = parsePluginSettings(definition, env);
          const app: PluginApp = {
            ...lifecycle.forPlugin(definition.name),
            // The dispatcher's middleware is fixed when the server starts: a change to it
            // takes a restart of `mcp-toolkit dev` (the running middleware stays in place).
            use: () => {
              if (!warnedMiddleware)
                server.logger.warn(
                  'middleware is not reloaded: restart mcp-toolkit dev to apply changes to it',
                );
              warnedMiddleware = true;
            },
            // Session-end hooks are fixed when the server starts, as middleware is: a reloaded
            // plugin's are not called (restart mcp-toolkit dev for them).
            onSessionEnd: () => {},
            // Routes are fixed once the HTTP server listens: the running ones stay in place.
            httpRoute: () => {
              if (!warnedRoutes)
                server.logger.warn(
                  'HTTP routes are not reloaded: restart mcp-toolkit dev to apply changes to them',
                );
              warnedRoutes = true;
            },
            add: (...defs) => {
              for (const def of defs) {
                if (live) server.registry.add(def);
                else {
                  scratch.add(definition.name, def);
                  staged.push(def);
                }
              }
            },
            remove: (kind, key) => server.registry.remove(kind, key),
            notifyResourceUpdated: (uri) => void server.notifyResourceUpdated(uri),
            notifyListChanged: (kind) => server.registry.notifyListChanged(kind),
            logger: server.logger.child({ plugin: definition.name }),
          };
          await registerPlugin(definition, app, settings);
        }
        await lifecycle.ready();
      } catch (err) {
        await lifecycle.close(server.settings.MCP_SHUTDOWN_TIMEOUT_MS);
        return { ok: false, error: err as Error };
      }
      // One swap, one list_changed per list that changed: none for a list that lists as before.
      const announced = server.registry.batch(() => {
        for (const [kind, key] of served(server.registry)) server.registry.remove(kind, key);
        for (const def of staged) server.registry.add(def);
      });
      live = true;
      const previous = current;
      current = lifecycle;
      await previous.close(server.settings.MCP_SHUTDOWN_TIMEOUT_MS);
      return { ok: true, counts: server.registry.counts, changed: announced };
    },
  };
}
