/**
 * `mcp-toolkit dev`: the development loop. The HTTP server with readable logs, the plugin
 * folders watched, and on a change the plugins reloaded in place (src/cli/dev-reload.ts):
 * connected clients get one list_changed notification per list that changed, and a plugin
 * that stops compiling is reported with file and line while its last good version keeps
 * serving. A plugin that does not load at start is reported the same way and watched: the
 * server serves the plugins that loaded (or none) and takes it in once it is fixed.
 */
import { type FSWatcher, watch } from 'node:fs';
import path from 'node:path';
import type { PluginRef } from '../assembly/serve.ts';
import { InternalCode, ToolkitError } from '../base/errors.ts';
import { parseSettings } from '../config/settings.ts';
import { importPlugin } from '../plugin/loader.ts';
import { createReloader, pluginFolders } from './dev-reload.ts';
import { type RunIo, startupSummary } from './run.ts';
import { checkFlags, parseCommand, USAGE } from './usage.ts';

/** Saves arrive as bursts of events (write, rename, chmod): reload once they settle. */
const SETTLE_MS = 150;

/**
 * Runs `mcp-toolkit dev`: resolves when the server has stopped.
 *
 * @example
 * await devCommand(['--port', '0'], process.env, { out, err, isTTY: true });
 */
export async function devCommand(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: RunIo & { out(text: string): void },
): Promise<void> {
  const parsed = parseCommand('dev', args, { host: { type: 'string' }, port: { type: 'string' } });
  if (parsed.help) {
    io.out(`${USAGE.dev}\n`);
    return;
  }
  const { host, port } = parsed.values as { host?: string; port?: string };
  checkFlags('dev', { host: ['MCP_HTTP_HOST', host], port: ['MCP_HTTP_PORT', port] });
  const overrides = {
    MCP_TRANSPORT: 'http',
    MCP_HTTP_HOST: host,
    MCP_HTTP_PORT: port,
    // Readable logs, unless the environment asks otherwise.
    MCP_LOG_FORMAT: env['MCP_LOG_FORMAT'] || 'pretty',
  };
  // Each plugin imported here first: one that does not import (a syntax error, a bad export)
  // is reported and watched, as tsx watch or nodemon would, instead of stopping the loop; one
  // that is not found is a setting to fix, and stops it as `run` does (exit 2).
  const given = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  const refs = parseSettings({ ...env, ...given }).MCP_PLUGINS;
  const plugins: PluginRef[] = [];
  const broken: Error[] = [];
  for (const ref of refs) {
    try {
      plugins.push(await importPlugin(ref));
    } catch (err) {
      if (err instanceof ToolkitError && err.code === InternalCode.PluginNotFound) throw err;
      broken.push(err as Error);
    }
  }
  const { serve } = await import('../assembly/serve.ts');
  const running = await serve({ env, overrides, plugins, handleSignals: true });
  const { server, settings } = running;
  const folders = pluginFolders(settings.MCP_PLUGINS);
  io.err(startupSummary(running, (env['MCP_LOG_FORMAT'] || 'pretty') === 'pretty'));
  for (const err of broken) {
    server.logger.error(
      `${err.message}\nserving ${plugins.length === 0 ? 'no plugin' : 'the plugins that loaded'} until it is fixed: save it and the plugins reload`,
    );
  }
  const reloader = createReloader(server, settings.MCP_PLUGINS, env);
  let timer: NodeJS.Timeout | undefined;
  let reloading: Promise<void> = Promise.resolve();
  const reload = () => {
    reloading = reloading.then(async () => {
      const outcome = await reloader.reload();
      if (outcome.ok)
        server.logger.info({ ...outcome.counts, listChanged: outcome.changed }, 'plugins reloaded');
      else
        server.logger.error(
          `plugins not reloaded, the last good version keeps serving: ${outcome.error.message}`,
        );
    });
  };
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(reload, SETTLE_MS);
  };
  const watchers: FSWatcher[] = folders.map((folder) => watch(folder, { recursive: true }, changed));
  // Files a plugin builds its tools from (its devWatch), watched where they are: an editor's
  // save often replaces the file, so the folder holding it is watched and filtered by name.
  const files = server.plugins.flatMap(({ definition, settings: s }) =>
    (definition.devWatch?.(s) ?? []).map((f) => path.resolve(f)),
  );
  for (const file of files) {
    const name = path.basename(file);
    watchers.push(watch(path.dirname(file), (_event, changedName) => changedName === name && changed()));
  }
  server.logger.info(
    { folders, files },
    'watching plugin folders and files: save one and the plugins reload in place',
  );
  await running.closed;
  clearTimeout(timer);
  for (const watcher of watchers) watcher.close();
}
