/**
 * The HTTP contenders of scenarios 1, 2 and 4: which server, which wire, how each is
 * verified before the load and what request loads it.
 */
import { randomBytes } from 'node:crypto';
import { openSession, post, verifyCall } from './http-load.ts';
import type { HttpContender, LoadRequest } from './http-scenario.ts';
import type { OtlpSink } from './otlp-sink.ts';
import {
  OURS_HTTP,
  oursHttp,
  RAW_HTTP,
  RAW_OTEL_HTTP,
  SDK_HTTP,
  SDK_SESSION_HTTP,
  TMCP_HTTP,
} from './servers.ts';
import { call2025, call2026, headers2025, headers2026, INITIALIZED, initialize2025 } from './wire.ts';

/** Scenario 1: a 2026-wire `tools/call` with JSON replies, no session, no handshake. */
async function prepare2026(url: string, extra: Record<string, string> = {}): Promise<LoadRequest> {
  const headers = headers2026(extra);
  await verifyCall(url, headers, call2026(1), 1);
  return { headers, body: JSON.stringify(call2026('[<id>]')), notes: [] };
}

/** `node --cpu-prof` flags writing `<dir>/<name>.cpuprofile` when the server exits (SIGTERM). */
function profileFlags(profileDir: string | undefined, name: string): string[] | undefined {
  return profileDir === undefined
    ? undefined
    : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`];
}

export function scenario1Contenders(profileDir: string | undefined): HttpContender[] {
  const ours: HttpContender = { key: 'ours', spec: OURS_HTTP, prepare: (url) => prepare2026(url) };
  const flags = profileFlags(profileDir, 'ours-scenario1');
  if (flags) ours.nodeFlags = flags;
  return [
    ours,
    { key: 'sdk', spec: SDK_HTTP, prepare: (url) => prepare2026(url) },
    { key: 'tmcp', spec: TMCP_HTTP, prepare: (url) => prepare2026(url) },
    { key: 'raw', spec: RAW_HTTP, prepare: (url) => prepare2026(url) },
  ];
}

/**
 * Scenario 4: scenario 1 against our server with API-key auth, an in-memory rate limit that
 * never fires and tracing to the OTLP sink, at three sample ratios (the SDK's
 * `parentbased_traceidratio` with `OTEL_TRACES_SAMPLER_ARG` 1, 0.1 and 0). "Not available"
 * when the settings are refused, "failed" when auth has no effect (a request without the key,
 * sent after the rounds, must be refused with 401). With them: the edge alone (auth and limit,
 * no tracing), ratio 0 without metrics (`OTEL_METRICS_EXPORTER=none`), and the anchor, the raw
 * Fastify route of scenario 1 with the OpenTelemetry Node SDK and its standard HTTP and
 * Fastify instrumentations exporting to the same sink with the same batch processor.
 */
export function scenario4Contenders(sink: OtlpSink, profileDir: string | undefined): HttpContender[] {
  const key = randomBytes(16).toString('hex');
  const edge = { MCP_AUTH: 'api_key', MCP_API_KEYS: `bench:${key}`, MCP_RATE_LIMIT_RPS: '1000000' };
  const tracing = { MCP_OTEL_ENDPOINT: sink.url, MCP_OTEL_SERVICE_NAME: 'bench' };
  const ratio = (arg: string) => ({
    ...tracing,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: arg,
  });
  // Ratio 0 without metrics has nothing to export: what it sent is reported, its silence expected.
  const exported = (contender: HttpContender, silent = false) => {
    contender.afterRounds = () => {
      const { requests, bytes, paths } = sink.stats(contender.key);
      if (requests === 0)
        return [
          silent
            ? 'the OTLP sink received nothing from this server, as expected (no span sampled, metrics off)'
            : 'the OTLP sink received nothing from this server: tracing exported no spans',
        ];
      return [
        `the OTLP sink received ${requests} exports (${bytes} bytes) from this server: ${JSON.stringify(paths)}`,
      ];
    };
  };
  const secured = (contenderKey: string, label: string, env: Record<string, string>): HttpContender => {
    const authenticated = env.MCP_AUTH !== undefined;
    const traced = env.MCP_OTEL_ENDPOINT !== undefined;
    // Each traced server exports under its own base URL, so that its note counts what it alone sent.
    const serverEnv = traced
      ? { ...env, MCP_OTEL_ENDPOINT: `${env.MCP_OTEL_ENDPOINT}/${contenderKey}` }
      : env;
    const contender: HttpContender = {
      key: contenderKey,
      spec: { id: contenderKey, label, ...oursHttp(serverEnv) },
      async prepare(url) {
        return prepare2026(url, authenticated ? { 'x-api-key': key } : {});
      },
    };
    if (authenticated) {
      // After the rounds, on the same process: a refused request sent first deoptimised Node's
      // HTTP parser, Fastify's reply path and our route handler (seen with --trace-deopt: a
      // request without the header, a reply with WWW-Authenticate), so the secured servers
      // ran on code that had seen two request shapes while plain scenario 1 saw one.
      contender.checkAfterRounds = async (url) => {
        const anonymous = await post(url, headers2026(), call2026(1));
        return anonymous.status === 401
          ? undefined
          : `auth is not enforced: a request without the API key got HTTP ${anonymous.status}`;
      };
    }
    if (traced)
      exported(contender, env.OTEL_TRACES_SAMPLER_ARG === '0' && env.OTEL_METRICS_EXPORTER === 'none');
    const flags = profileFlags(profileDir, `ours-${contenderKey.replace(/^ours-/, '')}-scenario4`);
    if (flags) contender.nodeFlags = flags;
    return contender;
  };
  const anchor: HttpContender = {
    key: 'raw-otel',
    spec: {
      ...RAW_OTEL_HTTP,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `${sink.url}/raw-otel`, OTEL_SERVICE_NAME: 'bench-raw' },
    },
    prepare: (url) => prepare2026(url),
  };
  exported(anchor);
  return [
    secured('ours-secured', 'mcp-toolkit + auth, limit, OTLP at sample ratio 1', { ...edge, ...ratio('1') }),
    secured('ours-sampled', 'mcp-toolkit + auth, limit, OTLP at sample ratio 0.1', {
      ...edge,
      ...ratio('0.1'),
    }),
    secured('ours-unsampled', 'mcp-toolkit + auth, limit, OTLP at sample ratio 0', {
      ...edge,
      ...ratio('0'),
    }),
    secured('ours-unsampled-nometrics', 'mcp-toolkit + auth, limit, OTLP at ratio 0, no metrics', {
      ...edge,
      ...ratio('0'),
      OTEL_METRICS_EXPORTER: 'none',
    }),
    secured('ours-edge', 'mcp-toolkit + auth, limit (no tracing)', edge),
    anchor,
  ];
}

/**
 * Scenario 2: a 2025-wire `tools/call` inside one session (initialize and
 * notifications/initialized first). A server that hands out no `Mcp-Session-Id` keeps no
 * sessions; it is then measured on what it offers, sessionless 2025 calls, and says so.
 */
async function prepare2025(url: string): Promise<LoadRequest> {
  const { sessionId, version } = await openSession(url, headers2025(), initialize2025(0), INITIALIZED);
  const headers = { ...headers2025(sessionId ?? undefined), 'mcp-protocol-version': version };
  await verifyCall(url, headers, call2025(1), 1);
  const notes =
    sessionId === null
      ? ['keeps no 2025-wire sessions (no Mcp-Session-Id): measured sessionless 2025-wire calls']
      : [];
  return { headers, body: JSON.stringify(call2025('[<id>]')), notes };
}

export function scenario2Contenders(): HttpContender[] {
  return [
    { key: 'ours', spec: OURS_HTTP, prepare: prepare2025 },
    { key: 'sdk', spec: SDK_HTTP, prepare: prepare2025 },
    { key: 'sdk-session', spec: SDK_SESSION_HTTP, prepare: prepare2025 },
  ];
}
