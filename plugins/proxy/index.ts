/**
 * The proxy plugin: another MCP server's tools, resources, resource templates, prompts and
 * completions served as ours. The upstream is a command run over stdio (MCP_PROXY_COMMAND) or
 * a streamable-HTTP endpoint (MCP_PROXY_URL), reached with the official client; what it offers
 * is registered through the public define* API, so our auth, scopes, rate limits, spans and
 * logs apply as to our own tools, on both protocol wires. See docs/proxy.md.
 */
import { definePlugin, InternalCode, ToolkitError } from '@mcp-toolkit/server';
import { checkUpstream, running } from './doctor.ts';
import { releaseRounds } from './forward.ts';
import { Mirror } from './mirror.ts';
import { Parking } from './parking.ts';
import { UpstreamPool, withSessionName } from './pool.ts';
import { NEEDS_ONE_UPSTREAM, type ProxySettings, proxySettings } from './settings.ts';
import { describeTarget, type ListKind, Upstream } from './upstream.ts';

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
    'Serves the tools, resources and prompts of another MCP server (MCP_PROXY_COMMAND over stdio, or MCP_PROXY_URL over streamable HTTP) as its own.',
  settings: proxySettings,
  register(app, settings) {
    if (settings.command === undefined && settings.url === undefined) {
      throw new ToolkitError(InternalCode.InvalidSetting, NEEDS_ONE_UPSTREAM);
    }
    // Syncs run one at a time: a list_changed during a reconnection's full sync waits for it.
    let syncing: Promise<void> = Promise.resolve();
    const never = new AbortController().signal;
    const resync = (kind: ListKind) => {
      syncing = syncing
        .then(() => upstream.client(never))
        .then((client) => mirror.sync(client, kind))
        .catch((err: Error) =>
          app.logger.warn({ kind, err: err.message }, 'could not re-read an upstream list'),
        );
    };
    const upstream: Upstream = new Upstream(withSessionName(settings, 'shared'), app.logger, {
      connected: (client) => mirror.syncAll(client),
      listChanged: resync,
      resourceUpdated: (uri) => app.notifyResourceUpdated(uri),
    });
    const pool = new UpstreamPool(upstream, settings, app.logger);
    const mirror = new Mirror(pool, settings, app, new Parking(settings));
    app.onSessionEnd((id) => pool.end(id));
    running.set(settings, { upstream, mirror, pool });

    // Where a call's input rounds run inside its request (the 2025 wire), an upstream call still
    // held for it has lost its round once the call is answered.
    app.use({
      name: 'proxy',
      async onCallTool(call, next) {
        try {
          return await next();
        } finally {
          if (call.ctx.inputRoundsInRequest) releaseRounds(call.ctx);
        }
      },
    });
    app.onReady(async () => {
      try {
        await upstream.start();
      } catch (err) {
        const message = `the upstream MCP server (${describeTarget(settings)}) did not start: ${(err as Error).message}`;
        // A command that does not come up is most likely a wrong setting: stop start-up. An
        // HTTP upstream may just not be up yet: serve, retry, and keep /readyz red meanwhile.
        if (settings.url === undefined) throw new Error(message);
        app.logger.error(message);
        upstream.retryLater();
      }
      app.logger.info({ upstream: describeTarget(settings), ...mirror.counts() }, 'proxy plugin ready');
    });
    app.onClose(() => pool.stop());
  },
  doctor: (settings) => checkUpstream(settings),
});

export default proxyPlugin;
