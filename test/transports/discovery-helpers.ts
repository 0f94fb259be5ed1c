/**
 * The HTTP app as serve() builds it, with the authenticator of MCP_AUTH wired in (buildTestApp
 * leaves auth out), for the tests of what the server shows before anyone connects.
 */
import { pino } from 'pino';
import { buildMcpServer } from '../../src/assembly/server.ts';
import { httpOptions } from '../../src/assembly/transport-options.ts';
import { createAuthenticator } from '../../src/auth/create.ts';
import { resourceUrls } from '../../src/auth/resource-metadata.ts';
import { parseSettings } from '../../src/config/settings.ts';
import type { LoadedPlugin } from '../../src/plugin/define.ts';
import { loadPlugins } from '../../src/plugin/loader.ts';
import { buildHttpApp } from '../../src/transports/http/server.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';
import { ECHO_PLUGIN, type TestApp } from './http-helpers.ts';

export const API_KEY = 'k-0123456789abcdef-secret';

export async function buildAppWithAuth(
  env: Readonly<Record<string, string>> = {},
  plugins?: LoadedPlugin[],
): Promise<TestApp> {
  const all = { MCP_PLUGINS: ECHO_PLUGIN, MCP_HTTP_HOST: '127.0.0.1', MCP_HTTP_PORT: '0', ...env };
  const settings = parseSettings(all);
  const urls = resourceUrls({ publicUrl: 'http://127.0.0.1', mcpPath: settings.MCP_HTTP_PATH });
  const server = await buildMcpServer({
    settings,
    plugins: plugins ?? (await loadPlugins(settings.MCP_PLUGINS, all, REPO_ROOT)),
    logger: pino({ level: 'silent' }),
    auth: createAuthenticator(settings, urls),
  });
  const app = await buildHttpApp(server, httpOptions(settings));
  return {
    app,
    server,
    settings,
    async listen() {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address() as { port: number };
      return `http://127.0.0.1:${address.port}${settings.MCP_HTTP_PATH}`;
    },
    async close() {
      app.server.closeAllConnections();
      await app.close();
      await server.close();
    },
  };
}
