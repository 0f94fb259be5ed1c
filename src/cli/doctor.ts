/**
 * `mcp-toolkit doctor`: the parsed settings (secrets masked), whether the auth settings are
 * complete, whether each external dependency answers (the OAuth issuer's metadata and JWKS,
 * Redis, the OTLP endpoint), each plugin with its own checks, and the registered counts.
 * One ✓/✗ line per check; non-zero when any check fails. Dependencies are probed with short
 * timeouts so a firewalled host fails the check in seconds instead of hanging it.
 */
import pino from 'pino';
import { buildMcpServer, PACKAGE_VERSION } from '../assembly/server.ts';
import { httpOptions, oauthResourceUrls } from '../assembly/transport-options.ts';
import { authWarnings, configuredApiKeys, createAuthenticator } from '../auth/create.ts';
import { type AuthorizationServerMetadata, discoverAuthorizationServer } from '../auth/discovery.ts';
import { requireAuthBeyondLoopback } from '../auth/public-bind.ts';
import type { Authenticator } from '../auth/types.ts';
import { maskSecret } from '../base/env.ts';
import type { PluginHttpRoute } from '../base/http-route.ts';
import { parseSettings, requireReplicaSettings, SETTING_NAMES, type Settings } from '../config/settings.ts';
import { describeUnknownSetting, unknownSettings } from '../config/unknown-settings.ts';
import { type LoadedPlugin, settingEnvName } from '../plugin/define.ts';
import { importPlugin, parsePluginSettings, pluginSettingNames } from '../plugin/loader.ts';
import { createRedisClient } from '../redis/client.ts';
import {
  explainRedisError,
  type RedisConnectionOptions,
  redisConnectionOptions,
} from '../redis/connection.ts';
import {
  OTEL_ENV_NAMES,
  type OtlpTarget,
  parseTracingConfig,
  type TracingConfig,
} from '../telemetry/otel-settings.ts';
import { checkRouteClashes } from '../transports/http/plugin-routes.ts';

/** Longest wait for one dependency (discovery, JWKS, PING, OTLP POST). */
const PROBE_TIMEOUT_MS = 3000;

type Mark = (ok: boolean, text: string) => void;

/**
 * Runs every check and prints one line per check through `print`. Resolves with the exit
 * code: 0 when all passed, 1 otherwise.
 *
 * @example
 * process.exitCode = await doctor(process.env, (line) => console.log(line));
 */
export async function doctor(
  env: Readonly<Record<string, string | undefined>>,
  print: (line: string) => void,
): Promise<number> {
  let failures = 0;
  const mark: Mark = (ok, text) => {
    if (!ok) failures++;
    print(`${ok ? '✓' : '✗'} ${text}`);
  };
  let settings: Settings;
  try {
    settings = parseSettings(env);
  } catch (err) {
    mark(false, `settings: ${(err as Error).message}`);
    return 1;
  }
  try {
    // The rules between settings that serve() enforces at start-up; the other checks still run.
    requireReplicaSettings(settings);
    mark(true, 'settings are valid');
  } catch (err) {
    mark(false, `settings: ${(err as Error).message}`);
  }
  print('');
  print('settings:');
  for (const name of SETTING_NAMES) {
    const value = settings[name as keyof typeof settings];
    print(
      `  ${name}=${JSON.stringify(maskSecret(name, value) ?? null)}${env[name] === undefined ? ' (default)' : ''}`,
    );
  }
  // The standard OpenTelemetry variables that are set (header values may be credentials).
  for (const name of OTEL_ENV_NAMES) {
    if (env[name] === undefined) continue;
    const shown = name.endsWith('_HEADERS') ? '••••••' : maskSecret(name, env[name]);
    print(`  ${name}=${JSON.stringify(shown)}`);
  }
  print('');
  let tracing: TracingConfig | undefined;
  try {
    tracing = parseTracingConfig(env, settings, PACKAGE_VERSION);
  } catch (err) {
    mark(false, `OpenTelemetry settings: ${(err as Error).message}`);
  }
  await checkAuth(settings, mark, print);
  if (settings.MCP_REDIS_URL !== undefined) await checkRedis(settings.MCP_REDIS_URL, settings, mark);
  if (tracing?.sdkDisabled) print('  OTEL_SDK_DISABLED=true: nothing is exported');
  else if (tracing?.traces !== undefined) await checkOtlp(tracing.traces, mark);

  const plugins: LoadedPlugin[] = [];
  // Every plugin that loaded declares its settings, valid or not: they are not "unknown".
  const declared: string[] = [];
  let blocked = false;
  for (const ref of settings.MCP_PLUGINS) {
    try {
      const definition = await importPlugin(ref);
      declared.push(...pluginSettingNames([{ definition, settings: {} }]));
      const pluginSettings = parsePluginSettings(definition, env);
      plugins.push({ definition, settings: pluginSettings });
      mark(true, `plugin ${definition.name}: loaded, settings valid`);
      for (const key of Object.keys(pluginSettings)) {
        const name = settingEnvName(definition.name, key);
        print(`    ${name}=${JSON.stringify(maskSecret(name, pluginSettings[key]) ?? null)}`);
      }
      for (const check of (await definition.doctor?.(pluginSettings)) ?? []) {
        if (!check.ok && check.kind !== 'advice') blocked = true;
        mark(check.ok, `plugin ${definition.name}: ${check.name}${check.detail ? ` (${check.detail})` : ''}`);
      }
    } catch (err) {
      blocked = true;
      mark(false, `plugin ${ref}: ${(err as Error).message}`);
    }
  }
  // Registration runs the plugins' register steps: only when they loaded and their own checks
  // passed (a failed check would fail it again), except `advice` ones (tools a plugin leaves
  // out). It does not run the checks again.
  if (!blocked) {
    try {
      const server = await buildMcpServer({
        settings,
        plugins,
        logger: pino({ level: 'silent' }),
        checkPlugins: false,
      });
      const c = server.registry.counts;
      mark(
        true,
        `registered ${c.tools} tools, ${c.resources} resources, ${c.resourceTemplates} resource templates, ${c.prompts} prompts`,
      );
      listRoutes(server.routes, settings, mark, print);
      await server.close();
    } catch (err) {
      mark(false, `registration: ${(err as Error).message}`);
    }
  }
  // A variable nobody reads leaves a default in force: most often a typo of a real setting.
  const known = [...SETTING_NAMES, ...declared];
  for (const unknown of unknownSettings(env, known)) mark(false, describeUnknownSetting(unknown));
  print('');
  print(failures === 0 ? 'doctor: all checks passed' : `doctor: ${failures} check(s) failed`);
  return failures === 0 ? 0 : 1;
}

/**
 * Each plugin's HTTP routes, one line each (`public` for `auth: false`), and whether any takes
 * a path the HTTP transport serves itself (start-up would stop on it).
 */
function listRoutes(
  routes: readonly PluginHttpRoute[],
  settings: Settings,
  mark: Mark,
  print: (line: string) => void,
): void {
  if (routes.length === 0) return;
  print(`HTTP routes (served with the HTTP transport, not on stdio):`);
  for (const r of routes) {
    print(`  plugin ${r.plugin}: ${r.method} ${r.url}${r.auth ? '' : ' (public: auth: false)'}`);
  }
  try {
    checkRouteClashes(routes, httpOptions(settings));
    mark(true, `HTTP routes: ${routes.length}, none on a path the server uses`);
  } catch (err) {
    mark(false, `HTTP routes: ${(err as Error).message}`);
  }
}

/**
 * The auth mode's settings (the same factory serve() uses, so an incomplete mode fails here
 * as it would at start-up), its warnings, and with oauth the issuer's metadata and JWKS.
 * Checked whatever MCP_TRANSPORT says: `run --transport http` can switch to HTTP later.
 */
async function checkAuth(settings: Settings, mark: Mark, print: (line: string) => void): Promise<void> {
  const urls = oauthResourceUrls(settings);
  let auth: Authenticator | undefined;
  try {
    auth = createAuthenticator(settings, urls);
  } catch (err) {
    mark(false, `auth: ${(err as Error).message}`);
    return;
  }
  if (auth === undefined) {
    try {
      // What start-up refuses with MCP_TRANSPORT=http (a host set beyond loopback means HTTP).
      requireAuthBeyondLoopback(settings);
      mark(true, 'auth: MCP_AUTH=none (every HTTP caller is anonymous)');
    } catch (err) {
      mark(false, `auth: ${(err as Error).message}`);
    }
  } else if (auth.kind === 'api_key') {
    const keys = configuredApiKeys(settings);
    const scoped = keys.filter((k) => k.scopes !== undefined).length;
    mark(
      true,
      `auth: MCP_AUTH=api_key with ${keys.length} key(s)${scoped > 0 ? `, ${scoped} scoped (MCP_API_KEYS_FILE)` : ''}`,
    );
  } else {
    mark(true, `auth: MCP_AUTH=oauth, tokens for ${urls.audience} from ${settings.MCP_OAUTH_ISSUER}`);
  }
  for (const warning of authWarnings(settings)) print(`! ${warning}`);
  if (auth?.kind !== 'oauth' || settings.MCP_OAUTH_ISSUER === undefined) return;

  const issuer = settings.MCP_OAUTH_ISSUER;
  let metadata: AuthorizationServerMetadata | undefined;
  try {
    metadata = await discoverAuthorizationServer(issuer, { timeoutMs: PROBE_TIMEOUT_MS });
    mark(true, `OAuth issuer metadata: ${issuer} (jwks_uri ${metadata.jwks_uri ?? 'missing'})`);
  } catch (err) {
    // With MCP_OAUTH_JWKS_URL the server never reads the metadata: not a failure then.
    if (settings.MCP_OAUTH_JWKS_URL === undefined) {
      mark(false, `OAuth issuer metadata: ${(err as Error).message}`);
      return;
    }
    print(`! OAuth issuer metadata unavailable; MCP_OAUTH_JWKS_URL is used instead`);
  }
  const jwksUrl = settings.MCP_OAUTH_JWKS_URL ?? metadata?.jwks_uri;
  try {
    // The authenticator's own fetch and validation of the key set, as /readyz does it.
    await withTimeout(auth.ready(), PROBE_TIMEOUT_MS * 2, 'the JWKS did not load');
    const keys = jwksUrl === undefined ? 0 : await countSigningKeys(jwksUrl);
    mark(
      keys > 0,
      keys > 0
        ? `OAuth JWKS: ${keys} signing key(s) at ${jwksUrl}`
        : `OAuth JWKS: ${jwksUrl} holds no asymmetric signing key, so no token can be verified`,
    );
  } catch (err) {
    mark(false, `OAuth JWKS${jwksUrl ? ` at ${jwksUrl}` : ''}: ${(err as Error).message}`);
  }
}

/** Keys of a JWKS a token can be verified with (RSA, EC, OKP; a symmetric `oct` key cannot). */
async function countSigningKeys(jwksUrl: string): Promise<number> {
  const res = await fetch(jwksUrl, {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
  });
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new Error(`HTTP ${res.status}`);
  }
  const body = (await res.json()) as { keys?: unknown };
  if (!Array.isArray(body.keys)) throw new Error('not a JWKS (no "keys" array)');
  return body.keys.filter(
    (k) =>
      typeof k === 'object' &&
      k !== null &&
      ['RSA', 'EC', 'OKP'].includes(String((k as { kty?: unknown }).kty)) &&
      (k as { use?: unknown }).use !== 'enc',
  ).length;
}

/**
 * PING through the same client settings the server uses (password, TLS CA); the URL is
 * printed masked, and a refused password or certificate names the setting to fix.
 */
async function checkRedis(url: string, settings: Settings, mark: Mark): Promise<void> {
  const shown = String(maskSecret('MCP_REDIS_URL', url));
  let connection: RedisConnectionOptions;
  try {
    connection = redisConnectionOptions(settings);
  } catch (err) {
    mark(false, `Redis: ${(err as Error).message}`);
    return;
  }
  const client = createRedisClient(url, { commandTimeoutMs: PROBE_TIMEOUT_MS, connection });
  // The socket's own error (ECONNREFUSED, ENOTFOUND, WRONGPASS, a TLS failure) says more than
  // the rejected connect ("Connection is closed"); without a listener ioredis would print it too.
  let socketError: Error | undefined;
  client.on('error', (err: Error) => {
    socketError ??= err;
  });
  try {
    const reply = await withTimeout(
      client.connect().then(() => client.ping()),
      PROBE_TIMEOUT_MS,
      `no answer within ${PROBE_TIMEOUT_MS} ms`,
    );
    mark(reply === 'PONG', `Redis reachable: ${shown} (PING → ${reply})`);
  } catch (err) {
    const reason = explainRedisError(socketError ?? err).message || 'connection failed';
    mark(false, `Redis unreachable: ${shown} (${reason})`);
  } finally {
    client.disconnect();
  }
}

/**
 * POSTs an empty protobuf body to `/v1/traces`: an empty ExportTraceServiceRequest is valid
 * OTLP, and any HTTP answer (even 4xx from a proxy) shows the endpoint is reachable.
 */
/**
 * An empty export request (a valid `ExportTraceServiceRequest` with no spans, in the
 * configured protocol, with the configured headers) must be answered 2xx: a port that is
 * open but refuses exports (a wrong path, a missing API key header) fails the check.
 */
async function checkOtlp(target: OtlpTarget, mark: Mark): Promise<void> {
  const shown = String(maskSecret('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', target.url));
  const json = target.protocol === 'http/json';
  try {
    const res = await fetch(target.url, {
      method: 'POST',
      headers: { ...target.headers, 'content-type': json ? 'application/json' : 'application/x-protobuf' },
      body: json ? '{}' : new Uint8Array(0),
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (res.ok)
      mark(true, `OTLP endpoint accepts exports: ${shown} (HTTP ${res.status}, ${target.protocol})`);
    else
      mark(false, `OTLP endpoint refused an empty export: ${shown} (HTTP ${res.status}, ${target.protocol})`);
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (err as Error).message;
    mark(false, `OTLP endpoint unreachable: ${shown} (${reason})`);
  }
}

function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
