/**
 * The upstreams one proxy plugin serves, each as the settings of a single upstream: the one
 * of MCP_PROXY_COMMAND or MCP_PROXY_URL, or each entry of MCP_PROXY_UPSTREAMS with its
 * credentials from MCP_PROXY_UPSTREAM_SECRETS and the plugin's shared limits (timeouts,
 * restart back-off, message size, held calls). Worked out once per settings object, so that
 * the running plugin and its doctor check see the same objects.
 */
import type { ProxySettings } from './settings.ts';
import { labelledUris, SAME_URIS, type UriSpace } from './transform.ts';
import type { ToolTransform } from './upstream-list.ts';

export interface UpstreamSpec {
  /** Its name in MCP_PROXY_UPSTREAMS; undefined for the one of MCP_PROXY_COMMAND or MCP_PROXY_URL. */
  readonly name: string | undefined;
  /** Down, it does not make /readyz fail (doctor still reports it). */
  readonly optional: boolean;
  /** Its settings, as those of a single upstream. */
  readonly settings: ProxySettings;
  /** Tool transforms by the upstream's own tool name. */
  readonly tools: Readonly<Record<string, ToolTransform>>;
  /** How its resource URIs are served. */
  readonly uris: UriSpace;
}

const specsOf = new WeakMap<object, readonly UpstreamSpec[]>();

/**
 * @example
 * for (const spec of upstreamSpecs(settings)) new Upstream(spec.settings, logger, hooks);
 */
export function upstreamSpecs(settings: ProxySettings): readonly UpstreamSpec[] {
  const known = specsOf.get(settings);
  if (known !== undefined) return known;
  const specs: UpstreamSpec[] =
    settings.upstreams.length === 0
      ? [{ name: undefined, optional: false, settings, tools: {}, uris: SAME_URIS }]
      : settings.upstreams.map((e) => {
          const secret = settings.upstreamSecrets[e.name];
          const one: ProxySettings = {
            ...settings,
            command: e.command,
            args: e.args,
            env: e.env,
            secretEnv: secret?.env ?? {},
            cwd: e.cwd,
            url: e.url,
            bearerToken: secret?.bearerToken,
            apiKey: secret?.apiKey,
            apiKeyHeader: e.apiKeyHeader,
            forwardUpstreamToken: false,
            prefix: e.prefix,
            include: e.include,
            exclude: e.exclude,
            scopes: e.scopes,
            isolation: e.isolation,
            upstreams: [],
            upstreamSecrets: {},
          };
          return {
            name: e.name,
            optional: e.optional,
            settings: one,
            tools: e.tools,
            uris: labelledUris(e.name),
          };
        });
  specsOf.set(settings, specs);
  return specs;
}
