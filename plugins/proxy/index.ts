/**
 * The proxy plugin: other MCP servers' tools, resources, resource templates, prompts and
 * completions served as ours. An upstream is a command run over stdio (MCP_PROXY_COMMAND) or
 * a streamable-HTTP endpoint (MCP_PROXY_URL), or several of either side by side
 * (MCP_PROXY_UPSTREAMS), reached with the official client; what they offer is registered
 * through the public define* API, so our auth, scopes, rate limits, spans and logs apply as to
 * our own tools, on both protocol wires. See docs/proxy.md.
 */
import { definePlugin } from '@mcp-toolkit/server';
import { checkUpstreams } from './doctor.ts';
import { registerProxy } from './register.ts';
import { type ProxySettings, proxySettings } from './settings.ts';

export type { ProxySettings };
export { proxySettings };

/**
 * The plugin definition; `MCP_PLUGINS=proxy` loads it.
 *
 * @example
 * const client = await TestClient.start({ plugins: [proxyPlugin], env: { MCP_PROXY_COMMAND: 'npx', MCP_PROXY_ARGS: '-y @modelcontextprotocol/server-memory' } });
 */
export const proxyPlugin = definePlugin({
  name: 'proxy',
  description:
    'Serves the tools, resources and prompts of other MCP servers (MCP_PROXY_COMMAND over stdio, MCP_PROXY_URL over streamable HTTP, or several in MCP_PROXY_UPSTREAMS) as its own.',
  settings: proxySettings,
  register: (app, settings) => registerProxy(app, settings),
  doctor: (settings) => checkUpstreams(settings),
});

export { proxyPluginWith } from './with-upstreams.ts';

export default proxyPlugin;
