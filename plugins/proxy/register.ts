/**
 * The proxy plugin's `register`: each upstream served (its connection, its sessions' pool, its
 * lists mirrored), calls held and relayed across upstreams, started together when the server
 * is ready and stopped with it. Both definitions, the plugin (index.ts) and the plugin with
 * upstreams given in code (with-upstreams.ts), register through it.
 */
import { InternalCode, type PluginApp, ToolkitError } from '@mcp-toolkit/server';
import type { HiddenArguments } from './definitions.ts';
import { running } from './doctor.ts';
import { releaseRounds } from './forward.ts';
import { Mirror } from './mirror.ts';
import { Parking } from './parking.ts';
import { UpstreamPool, withSessionName } from './pool.ts';
import { Relay, type RelayedUpstream } from './relay.ts';
import { NEEDS_ONE_UPSTREAM, type ProxySettings } from './settings.ts';
import { type UpstreamSpec, upstreamSpecs } from './specs.ts';
import { hiddenArgumentSent } from './transform.ts';
import { describeTarget, type ListKind, Upstream } from './upstream.ts';

/** One upstream of the plugin, running. */
interface Served extends RelayedUpstream {
  readonly mirror: Mirror;
  readonly pool: UpstreamPool;
}

/** Starts serving one upstream: its connection, its sessions' pool, its lists mirrored. */
function serve(
  app: PluginApp,
  spec: UpstreamSpec,
  parking: Parking,
  hidden: HiddenArguments,
  relay: () => Relay,
): Served {
  const { settings } = spec;
  const logger = spec.name === undefined ? app.logger : app.logger.child({ upstream: spec.name });
  // Syncs run one at a time: a list_changed during a reconnection's full sync waits for it.
  let syncing: Promise<void> = Promise.resolve();
  const never = new AbortController().signal;
  const resync = (kind: ListKind) => {
    syncing = syncing
      .then(() => upstream.client(never))
      .then((client) => mirror.sync(client, kind))
      .catch((err: Error) => logger.warn({ kind, err: err.message }, 'could not re-read an upstream list'));
  };
  const upstream: Upstream = new Upstream(withSessionName(settings, 'shared'), logger, {
    connected: async (client) => {
      await mirror.syncAll(client);
      relay().reconnected(served, client);
    },
    listChanged: resync,
    resourceUpdated: (uri) => app.notifyResourceUpdated(spec.uris.ours(uri)),
  });
  const pool = new UpstreamPool(upstream, settings, logger);
  const mirror = new Mirror(pool, spec, app, parking, logger, hidden);
  const served: Served = { spec, upstream, pool, mirror };
  running.set(settings, { upstream, mirror, pool });
  return served;
}

/** Connects one upstream at start-up; what happens when it does not come up is in docs/proxy.md. */
async function start(app: PluginApp, s: Served): Promise<void> {
  const { settings, name } = s.spec;
  try {
    await s.upstream.start();
  } catch (err) {
    const which = name === undefined ? 'the upstream MCP server' : `upstream ${name}`;
    const message = `${which} (${describeTarget(settings)}) did not start: ${(err as Error).message}`;
    // The one command of MCP_PROXY_COMMAND that does not come up is most likely a wrong
    // setting: stop start-up. An HTTP upstream may just not be up yet, and one of several
    // must not take the others down: serve, retry, and keep /readyz red meanwhile.
    if (name === undefined && settings.url === undefined) throw new Error(message);
    app.logger.error(message);
    s.upstream.retryLater();
  }
  app.logger.info(
    {
      ...(name !== undefined ? { upstreamName: name } : {}),
      upstream: describeTarget(settings),
      ...s.mirror.counts(),
    },
    'proxy plugin ready',
  );
}

/** Registers the proxy's upstreams (the plugin's `register`). */
export function registerProxy(app: PluginApp, settings: ProxySettings): void {
  if (settings.command === undefined && settings.url === undefined && settings.upstreams.length === 0) {
    throw new ToolkitError(InternalCode.InvalidSetting, NEEDS_ONE_UPSTREAM);
  }
  // One table of held calls for all upstreams: its bounds are the plugin's.
  const parking = new Parking(settings);
  const hidden: HiddenArguments = new Map();
  let relay: Relay | undefined;
  const all = upstreamSpecs(settings).map((spec) => serve(app, spec, parking, hidden, () => relay as Relay));
  relay = new Relay(all, app.logger);
  app.onSessionEnd((id) => {
    for (const s of all) s.pool.end(id);
    relay?.sessionEnded(id);
  });

  // Where a call's input rounds run inside its request (the 2025 wire), an upstream call still
  // held for it has lost its round once the call is answered.
  app.use({
    name: 'proxy',
    async onCallTool(call, next) {
      // A hidden argument is refused before the arguments are checked against the schema.
      const names = hidden.size > 0 ? hidden.get(String(call.params.name)) : undefined;
      const args = call.params.arguments;
      if (names !== undefined && typeof args === 'object' && args !== null) {
        const sent = names.filter((n) => Object.hasOwn(args, n));
        if (sent.length > 0) throw hiddenArgumentSent(String(call.params.name), sent);
      }
      try {
        return await next();
      } finally {
        if (call.ctx.inputRoundsInRequest) releaseRounds(call.ctx);
      }
    },
  });
  app.use(relay.middleware());
  // Started together: one slow upstream does not hold the others' start.
  app.onReady(async () => {
    await Promise.all(all.map((s) => start(app, s)));
  });
  app.onClose(async () => {
    await Promise.all(all.map((s) => s.pool.stop()));
  });
}
