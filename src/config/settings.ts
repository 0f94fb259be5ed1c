/**
 * Every `MCP_*` setting, parsed once with zod into a frozen object. `process.env` is read
 * here and in `src/cli/` only. Each entry carries its description, so the settings table in
 * docs/configuration.md is checked against this schema by a test.
 */
import { z } from 'zod';
import { oauthProxySettingsShape } from '../auth/oauth-proxy/settings.ts';
import { authSettingsShape } from '../auth/settings.ts';
import {
  describeIssues,
  envEnum,
  envHost,
  envInt,
  envList,
  envString,
  envText,
  envTrustProxy,
} from '../base/env.ts';
import { InternalCode, ToolkitError } from '../base/errors.ts';
import { discoverySettingsShape } from '../discovery/settings.ts';
import { rateLimitSettingsShape } from '../ratelimit/settings.ts';
import { parseRedisUrl } from '../redis/url.ts';
import { skillSettingsShape } from '../skills/settings.ts';
import { taskSettingsShape } from '../tasks/settings.ts';
import { telemetrySettingsShape } from '../telemetry/settings.ts';

const HTTP_PATH = z
  .string()
  .regex(/^\/[A-Za-z0-9._~\-/]*$/, { error: 'expected a path starting with "/"' })
  .optional()
  .transform((v) => v ?? '/mcp');

/** The core settings. Plugins add `MCP_<PLUGIN>_*` through their own schemas. */
export const settingsSchema = z.object({
  MCP_TRANSPORT: envEnum(['stdio', 'http'], 'stdio').describe('Transport: `stdio` or `http`.'),
  MCP_HTTP_HOST: envHost('127.0.0.1').describe(
    'Address the HTTP server binds: an IP address or a host name.',
  ),
  MCP_HTTP_PORT: envInt(8000, 0, 65535).describe('Port of the HTTP server (0 picks a free one).'),
  MCP_HTTP_PATH: HTTP_PATH.describe('Path of the MCP endpoint.'),
  MCP_ALLOWED_HOSTS: envList([]).describe(
    'Host header values accepted (DNS-rebinding protection). Default: localhost names when bound to loopback.',
  ),
  MCP_ALLOWED_ORIGINS: envList([]).describe(
    'Origin header values accepted. Default: http(s)://localhost, 127.0.0.1 and [::1] on any port when bound to loopback.',
  ),
  MCP_PUBLIC_URL: envString().describe(
    'Public base URL of the server (the OAuth resource is this plus MCP_HTTP_PATH). Default: the bound address.',
  ),
  MCP_CORS_ORIGINS: envList([]).describe(
    'Browser origins allowed by CORS (`*` for any); exposes Mcp-Session-Id, MCP-Protocol-Version and WWW-Authenticate.',
  ),
  MCP_TRUST_PROXY: envTrustProxy().describe(
    'Proxies trusted for X-Forwarded-For (client address for rate limits and logs): `true`, a hop count, or addresses/CIDRs.',
  ),
  MCP_PLUGINS: envList(['filesystem']).describe(
    'Plugins to load: names under `plugins/` or paths to modules.',
  ),
  MCP_LOG_LEVEL: envEnum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'], 'info').describe(
    'Server log level (pino, on stderr).',
  ),
  MCP_LOG_FORMAT: envEnum(['auto', 'json', 'pretty'], 'auto').describe(
    'Log format: pretty when stderr is a terminal (`auto`), or forced.',
  ),
  MCP_SERVER_NAME: envText('mcp-toolkit').describe('serverInfo.name sent to clients.'),
  MCP_SERVER_INSTRUCTIONS: envString().describe(
    "Instructions for the model, sent in initialize and server/discover results before each plugin's own (in load order).",
  ),
  MCP_TOOL_TIMEOUT_MS: envInt(60_000, 1, 86_400_000).describe(
    'Per-call timeout of tool, resource and prompt handlers.',
  ),
  MCP_MAX_BODY_BYTES: envInt(1_048_576, 1024, 104_857_600).describe(
    'Largest HTTP body or stdio line accepted (413 / error beyond).',
  ),
  MCP_MAX_BATCH: envInt(100, 1, 10_000).describe(
    'Largest JSON-RPC batch accepted (protocol 2025-03-26 and earlier).',
  ),
  MCP_PROGRESS_HEARTBEAT_MS: envInt(0, 0, 3_600_000).describe(
    'While a tool runs and its request carried a progressToken, send a progress notification after this many quiet ms, so clients that reset their timeout on progress keep waiting; 0 is off. A tool can set its own (`heartbeatMs`).',
  ),
  MCP_MAX_JSON_DEPTH: envInt(64, 8, 1000).describe(
    'Deepest nesting of objects and arrays a message may have; a deeper one is refused as an invalid request before any handler sees it.',
  ),
  MCP_PAGE_SIZE: envInt(100, 1, 10_000).describe(
    'Items per page of tools/list, resources/list, prompts/list.',
  ),
  MCP_SESSION_IDLE_MS: envInt(1_800_000, 1000, 604_800_000).describe(
    'Idle time after which a 2025-wire session expires, counted from the end of its last request; a session with a request in flight never expires.',
  ),
  MCP_MAX_SESSIONS: envInt(10_000, 1, 10_000_000).describe('Open 2025-wire sessions allowed at once.'),
  MCP_MAX_STREAMS_PER_SESSION: envInt(8, 1, 1000).describe(
    'Open GET (SSE) streams one 2025-wire session may hold on one replica.',
  ),
  MCP_MAX_LISTEN_STREAMS: envInt(16, 1, 10_000).describe(
    'Open 2026 `subscriptions/listen` streams one caller (API key, token subject, else client address) may hold on one replica.',
  ),
  MCP_SSE_KEEPALIVE_MS: envInt(15_000, 1000, 3_600_000).describe(
    'Interval of keep-alive comments on idle SSE streams.',
  ),
  MCP_SSE_RETRY_MS: envInt(5000, 0, 3_600_000).describe(
    '`retry:` hint sent in the priming event of SSE streams.',
  ),
  MCP_SSE_STANDALONE_GRACE_MS: envInt(60_000, 0, 3_600_000).describe(
    'How long a 2025-wire session’s standalone GET stream whose connection dropped keeps collecting its messages for a resume (Last-Event-ID); a resume after that replays what it kept and carries on as a new stream.',
  ),
  MCP_EVENT_RETENTION: envInt(1000, 1, 1_000_000).describe('Events kept per SSE stream for resumption.'),
  MCP_INPUT_TIMEOUT_MS: envInt(300_000, 100, 86_400_000).describe(
    'How long a 2025-wire server-to-client request (elicitation, sampling, roots) may wait for the answer.',
  ),
  MCP_STATE_SECRET: envString().describe(
    'Key that seals 2026-wire requestState (HMAC). Random per process when unset; required with several replicas.',
  ),
  MCP_STATE_TTL_MS: envInt(600_000, 1000, 86_400_000).describe(
    'Lifetime of a sealed 2026-wire requestState.',
  ),
  MCP_SHUTDOWN_TIMEOUT_MS: envInt(10_000, 0, 600_000).describe(
    'How long in-flight calls and running tasks may finish after SIGTERM (after MCP_SHUTDOWN_DELAY_MS); those still running at its end are stopped (calls answered 503, tasks failed).',
  ),
  MCP_SHUTDOWN_DELAY_MS: envInt(0, 0, 600_000).describe(
    'On SIGTERM, how long the HTTP server goes on serving every request with /readyz answering 503, before it stops accepting connections and drains (MCP_SHUTDOWN_TIMEOUT_MS): time for a load balancer that probes /readyz to take it out of rotation. 0: stop accepting at once.',
  ),
  ...authSettingsShape,
  ...oauthProxySettingsShape,
  ...discoverySettingsShape,
  ...rateLimitSettingsShape,
  ...telemetrySettingsShape,
  ...taskSettingsShape,
  ...skillSettingsShape,
});

export type Settings = Readonly<z.output<typeof settingsSchema>>;
export type SettingName = keyof z.input<typeof settingsSchema>;

/** The names of every core setting, for docs and manifest checks. */
export const SETTING_NAMES = Object.keys(settingsSchema.shape) as SettingName[];

/** A settings object as a program gives it: values by `MCP_*` name, lists as arrays. */
export type SettingsInput = Readonly<
  Record<string, string | number | boolean | readonly string[] | undefined>
>;

/**
 * The settings a program gives, as the environment would hold them: numbers and booleans
 * as text, a list joined with commas; undefined values left out.
 *
 * @example
 * settingsRecord({ MCP_AUTH: 'api_key', MCP_API_KEYS: ['ci:a-long-random-key', 'bot:another-long-key'], MCP_HTTP_PORT: 0 });
 */
export function settingsRecord(input: SettingsInput): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(',') : String(value);
  }
  return out;
}

/** The process's environment: what the CLI and `serve()` read settings from by default. */
export function processEnvironment(): Readonly<Record<string, string | undefined>> {
  return process.env;
}

/**
 * Parses the core settings from an environment; throws a ToolkitError (InvalidSetting)
 * whose message names each bad variable, its value and what it accepts.
 */
export function parseSettings(env: Readonly<Record<string, string | undefined>>): Settings {
  const picked: Record<string, string | undefined> = {};
  for (const name of SETTING_NAMES) picked[name] = env[name];
  const result = settingsSchema.safeParse(picked);
  if (!result.success) throw new ToolkitError(InternalCode.InvalidSetting, describeIssues(result.error, env));
  return Object.freeze(result.data);
}

/**
 * Rules between settings, checked at start-up after parsing. With `MCP_REDIS_URL` replicas
 * share state, and a 2026 `requestState` sealed by one must open on another: a per-process
 * random key would reject it, so `MCP_STATE_SECRET` is required. The Redis companions
 * (`MCP_REDIS_PASSWORD`, `MCP_REDIS_TLS_CA`) need a URL they apply to, the CA a TLS one, and
 * a password is given once (ioredis would silently prefer the URL's). Throws a ToolkitError
 * (InvalidSetting) naming the variable, like a bad value.
 *
 * @example
 * requireReplicaSettings(parseSettings(process.env));
 */
export function requireReplicaSettings(settings: Settings): void {
  const url = settings.MCP_REDIS_URL;
  const refuse = (message: string) => {
    throw new ToolkitError(InternalCode.InvalidSetting, message);
  };
  for (const name of ['MCP_REDIS_PASSWORD', 'MCP_REDIS_TLS_CA'] as const) {
    if (url === undefined && settings[name] !== undefined) {
      refuse(`${name} is set but MCP_REDIS_URL is not: it applies to the Redis that MCP_REDIS_URL names`);
    }
  }
  if (url === undefined) return;
  if (settings.MCP_STATE_SECRET === undefined) {
    refuse(
      'MCP_STATE_SECRET is required when MCP_REDIS_URL is set: replicas must share the key that ' +
        'seals 2026-wire requestState; set the same random value on every replica (e.g. `openssl rand -hex 32`)',
    );
  }
  // One server, a Sentinel set or a Cluster (the schema has checked the form already).
  const target = parseRedisUrl(url);
  const scheme = url.slice(0, url.indexOf('://') + 3);
  const tls = target.kind === 'server' ? /^rediss:/i.test(url) : target.tls;
  const urlPassword =
    target.kind === 'server'
      ? URL.canParse(url) && new URL(url).password !== ''
      : target.password !== undefined;
  if (settings.MCP_REDIS_TLS_CA !== undefined && !tls) {
    refuse(
      `MCP_REDIS_TLS_CA is set but MCP_REDIS_URL is ${scheme}, which does not use TLS: ` +
        'use a rediss:// URL (rediss+sentinel://, rediss+cluster://), or unset MCP_REDIS_TLS_CA',
    );
  }
  if (settings.MCP_REDIS_PASSWORD !== undefined && urlPassword) {
    refuse(
      'MCP_REDIS_PASSWORD is set and MCP_REDIS_URL carries a password too: give the password in one of them',
    );
  }
}
