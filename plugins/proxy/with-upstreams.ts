/**
 * The proxy plugin with its upstreams given in code (FastMCP's `mount`, for a server embedded
 * in an application) instead of MCP_PROXY_UPSTREAMS: the same entries, checked by the same
 * schema when the plugin is made (an Error naming the entry and field), and the same secrets
 * by upstream name. Every other `MCP_PROXY_*` setting (timeouts, held-call bounds) still
 * comes from the environment; an upstream set there as well is refused at start-up.
 */
import { definePlugin, InternalCode, type PluginDefinition, ToolkitError } from '@mcp-toolkit/server';
import { checkUpstreams } from './doctor.ts';
import { registerProxy } from './register.ts';
import { type ProxySettings, proxySettings } from './settings.ts';
import {
  parseSecrets,
  parseUpstreams,
  secretProblems,
  type UpstreamEntryInput,
  type UpstreamSecretInput,
} from './upstream-list.ts';

export interface ProxyUpstreams {
  /** The upstreams, as the entries of MCP_PROXY_UPSTREAMS. */
  readonly upstreams: readonly UpstreamEntryInput[];
  /** Their credentials by upstream name, as MCP_PROXY_UPSTREAM_SECRETS. */
  readonly secrets?: Readonly<Record<string, UpstreamSecretInput>>;
}

/**
 * @example
 * const proxy = proxyPluginWith({
 *   upstreams: [
 *     { name: 'memory', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], prefix: 'mem_' },
 *     { name: 'tickets', url: 'https://mcp.internal.example/mcp', prefix: 'tickets_' },
 *   ],
 *   secrets: { tickets: { bearerToken: process.env.TICKETS_TOKEN } },
 * });
 * await serve({ plugins: [proxy, myPlugin] });
 */
export function proxyPluginWith(options: ProxyUpstreams): PluginDefinition<ProxySettings> {
  const upstreams = parseUpstreams(JSON.stringify(options.upstreams));
  const secrets = parseSecrets(JSON.stringify(options.secrets ?? {}));
  const problems = secretProblems(upstreams, secrets);
  if (problems.length > 0) throw new Error(problems.join('; '));
  // One object per settings object, so that the running plugin and its doctor check meet.
  const merged = new WeakMap<object, ProxySettings>();
  const withList = (settings: ProxySettings): ProxySettings => {
    const known = merged.get(settings);
    if (known !== undefined) return known;
    if (settings.command !== undefined || settings.url !== undefined || settings.upstreams.length > 0) {
      throw new ToolkitError(
        InternalCode.InvalidSetting,
        'this proxy plugin has its upstreams in code (proxyPluginWith): leave MCP_PROXY_COMMAND, MCP_PROXY_URL and MCP_PROXY_UPSTREAMS unset',
      );
    }
    const out = { ...settings, upstreams, upstreamSecrets: secrets };
    merged.set(settings, out);
    return out;
  };
  return definePlugin({
    name: 'proxy',
    description: `Serves the tools, resources and prompts of ${upstreams.map((u) => u.name).join(', ')} as its own.`,
    settings: proxySettings,
    register: (app, settings) => registerProxy(app, withList(settings)),
    doctor: (settings) => checkUpstreams(withList(settings)),
  }) as PluginDefinition<ProxySettings>;
}
