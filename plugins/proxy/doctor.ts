/**
 * The proxy plugin's check, for `mcp-toolkit doctor` and `/readyz`: the upstream answers. In
 * the running server it reports the live connection (its name, version, protocol revision and
 * tool count, or why it is down and when the next restart is due); from `mcp-toolkit doctor`
 * it connects once, reads the tools and closes. A `dependency` check: /readyz is 503 while the
 * upstream is down. Details name the kind of upstream, never its command line or credentials.
 */
import type { DoctorCheck, Logger } from '@mcp-toolkit/server';
import { readList } from './lists.ts';
import type { Mirror } from './mirror.ts';
import { type UpstreamPool, withSessionName } from './pool.ts';
import { NEEDS_ONE_UPSTREAM, type ProxySettings } from './settings.ts';
import { type UpstreamSpec, upstreamSpecs } from './specs.ts';
import { Upstream, type UpstreamStatus } from './upstream.ts';

const NAME = 'proxy upstream answers';

/** The check's name: one per upstream of MCP_PROXY_UPSTREAMS, by its name. */
const nameOf = (spec: UpstreamSpec) =>
  spec.name === undefined ? NAME : `proxy upstream ${spec.name} answers`;
/** A doctor probe must not hold doctor for long. */
const PROBE_TIMEOUT_MS = 15_000;

/** The running server's upstream, by the settings object its plugin was registered with. */
export const running = new WeakMap<object, { upstream: Upstream; mirror: Mirror; pool: UpstreamPool }>();

const quiet = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;

function kindOf(settings: ProxySettings): string {
  return settings.url !== undefined ? 'HTTP upstream' : 'stdio upstream';
}

function upDetail(status: UpstreamStatus, tools: string): string {
  const s = status.server;
  return `${s?.name ?? '?'} ${s?.version ?? '?'}, protocol ${s?.protocolVersion ?? '?'}: ${tools}`;
}

function downDetail(settings: ProxySettings, status: UpstreamStatus): string {
  const next =
    status.retryAt !== undefined
      ? `; next attempt in ${Math.max(0, Math.ceil((status.retryAt - Date.now()) / 1000))} s`
      : '';
  const restarts = status.restarts > 0 ? `; ${status.restarts} restart(s) so far` : '';
  return `${kindOf(settings)} ${status.state}: ${status.error ?? 'not connected yet'}${restarts}${next}`;
}

/**
 * One check per upstream. A required upstream that is down fails as a `dependency` (/readyz is
 * 503 naming it); an `optional` one fails as `advice` (doctor reports it, /readyz does not).
 *
 * @example
 * const [check] = await checkUpstreams(settings); // { name: 'proxy upstream answers', ok: true, detail: 'memory-server 0.6.3, ...' }
 */
export async function checkUpstreams(settings: ProxySettings): Promise<DoctorCheck[]> {
  if (settings.command === undefined && settings.url === undefined && settings.upstreams.length === 0) {
    return [{ name: NAME, ok: false, kind: 'config', detail: NEEDS_ONE_UPSTREAM }];
  }
  const checks = await Promise.all(upstreamSpecs(settings).map((spec) => checkUpstream(spec)));
  return checks.map((c, i) => {
    const spec = upstreamSpecs(settings)[i] as UpstreamSpec;
    const named = { ...c, name: nameOf(spec) };
    return !c.ok && spec.optional
      ? { ...named, kind: 'advice' as const, detail: `optional; ${c.detail}` }
      : named;
  });
}

async function checkUpstream(spec: UpstreamSpec): Promise<DoctorCheck> {
  const [check] = await checkOne(spec.settings);
  return check as DoctorCheck;
}

async function checkOne(settings: ProxySettings): Promise<DoctorCheck[]> {
  const live = running.get(settings);
  if (live !== undefined) {
    const status = live.upstream.status();
    if (status.state !== 'up')
      return [{ name: NAME, ok: false, kind: 'dependency', detail: downDetail(settings, status) }];
    const c = live.mirror.counts();
    const tools = `${c.upstreamTools} tool(s), ${c.tools} served; ${c.resources} resource(s), ${c.resourceTemplates} template(s), ${c.prompts} prompt(s)`;
    const sessions =
      settings.isolation === 'per-session'
        ? `; ${live.pool.sessions} of at most ${settings.maxSessions} per-session upstream(s) running`
        : '';
    return [{ name: NAME, ok: true, kind: 'dependency', detail: upDetail(status, tools + sessions) }];
  }
  let tools = 0;
  const probe = new Upstream(
    withSessionName(
      { ...settings, connectTimeoutMs: Math.min(settings.connectTimeoutMs, PROBE_TIMEOUT_MS) },
      'shared',
    ),
    quiet,
    {
      connected: async (client) => {
        tools = client.getServerCapabilities()?.tools ? (await readList(client, 'tools')).items.length : 0;
      },
      listChanged: () => {},
    },
  );
  try {
    await probe.start();
    return [
      { name: NAME, ok: true, kind: 'dependency', detail: upDetail(probe.status(), `${tools} tool(s)`) },
    ];
  } catch {
    return [{ name: NAME, ok: false, kind: 'dependency', detail: downDetail(settings, probe.status()) }];
  } finally {
    await probe.stop();
  }
}
