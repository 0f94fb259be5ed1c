/**
 * fly.toml parses and agrees with the code: the internal port is the schema's MCP_HTTP_PORT,
 * the health check hits /readyz, Fly waits longer than the server's drain before SIGKILL,
 * every [env] name is a real setting whose value parses, [metrics] scrapes MCP_METRICS_PORT,
 * and secrets are named in comments only, never valued.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'smol-toml';
import { REPO_ROOT } from '../helpers/spawn-server.ts';
import { imageEnv, readDockerfile } from './dockerfile.ts';
import { knownSettings, unknownNames } from './known-settings.ts';

interface FlyConfig {
  app: string;
  kill_signal?: string;
  kill_timeout?: number | string;
  build?: { dockerfile?: string };
  env?: Record<string, string>;
  http_service: {
    internal_port: number;
    force_https?: boolean;
    auto_stop_machines?: string | boolean;
    auto_start_machines?: boolean;
    min_machines_running?: number;
    checks?: { path: string; method?: string; interval?: string; timeout?: string }[];
  };
  metrics?: { port?: number; path?: string };
}

const text = readFileSync(path.join(REPO_ROOT, 'fly.toml'), 'utf8');
const fly = parse(text) as unknown as FlyConfig;
const env = fly.env ?? {};
const SECRETS = ['MCP_API_KEYS', 'MCP_STATE_SECRET', 'MCP_REDIS_URL'];

/** Fly accepts seconds as a number or a Go duration string ("30s", "1m"). */
function seconds(value: number | string | undefined): number {
  if (value === undefined) return 5; // Fly's default
  if (typeof value === 'number') return value;
  const m = /^(\d+)(s|m)$/.exec(value);
  assert.ok(m, `kill_timeout ${value}`);
  return Number(m[1]) * (m[2] === 'm' ? 60 : 1);
}

test('builds the Dockerfile and serves on the default MCP_HTTP_PORT', async () => {
  const known = await knownSettings();
  assert.equal(fly.build?.dockerfile, 'Dockerfile');
  assert.equal(fly.http_service.internal_port, Number(env.MCP_HTTP_PORT ?? known.defaults.MCP_HTTP_PORT));
  assert.equal(fly.http_service.force_https, true);
});

test('the HTTP check requests /readyz (Fly routes by it and restarts nothing), and says why', () => {
  const checks = fly.http_service.checks ?? [];
  assert.ok(checks.length > 0, 'at least one check');
  assert.ok(checks.every((c) => c.path === '/readyz' && (c.method ?? 'GET') === 'GET'));
  assert.match(
    text,
    /# Readiness: Fly's proxy routes requests only to machines whose http_service checks pass/,
  );
});

test('SIGTERM, and a kill_timeout longer than MCP_SHUTDOWN_DELAY_MS plus MCP_SHUTDOWN_TIMEOUT_MS', async () => {
  const known = await knownSettings();
  assert.equal(fly.kill_signal, 'SIGTERM');
  const shutdownMs = Number(env.MCP_SHUTDOWN_TIMEOUT_MS ?? known.defaults.MCP_SHUTDOWN_TIMEOUT_MS);
  const delayMs = Number(env.MCP_SHUTDOWN_DELAY_MS ?? known.defaults.MCP_SHUTDOWN_DELAY_MS);
  // The /readyz check sees the drain (503) before the listener closes.
  const intervalMs = Math.max(
    ...(fly.http_service.checks ?? []).map((c) => seconds(c.interval ?? '15s') * 1000),
  );
  assert.ok(
    delayMs >= intervalMs,
    `MCP_SHUTDOWN_DELAY_MS ${delayMs} ms covers a check interval (${intervalMs} ms)`,
  );
  const totalMs = shutdownMs + delayMs;
  assert.ok(seconds(fly.kill_timeout) * 1000 > totalMs, `${fly.kill_timeout} s > ${totalMs} ms`);
});

test("Fly scrapes MCP_METRICS_PORT's /metrics", () => {
  assert.equal(fly.metrics?.path, '/metrics');
  assert.equal(String(fly.metrics?.port), env.MCP_METRICS_PORT);
  assert.notEqual(fly.metrics?.port, fly.http_service.internal_port, 'a port of its own, not published');
});

test('auto stop keeps one machine running', () => {
  assert.equal(fly.http_service.auto_stop_machines, 'stop');
  assert.equal(fly.http_service.auto_start_machines, true);
  assert.equal(fly.http_service.min_machines_running, 1);
});

test('every [env] name is a real setting and the values parse with the image env', async () => {
  const known = await knownSettings();
  assert.deepEqual(unknownNames(Object.keys(env), known), []);
  known.parse({ ...imageEnv(readDockerfile()), ...env });
  assert.equal(
    new URL(env.MCP_PUBLIC_URL!).host,
    env.MCP_ALLOWED_HOSTS,
    'the public host is the allowed one',
  );
});

test('secrets are named in comments and never valued in the file', () => {
  for (const name of SECRETS) {
    assert.ok(!(name in env), `${name} is not in [env]`);
    assert.match(text, new RegExp(`^#.*\\b${name}\\b`, 'm'), `${name} is named in a comment`);
  }
});

/** The `fly …` commands of a text: shell lines in the docs, `#   fly …` comment lines in fly.toml. */
function flyCommands(source: string): string[] {
  return [...source.matchAll(/^(?:#\s*)?(fly [a-z]+[^\n#]*)/gm)].map((m) => m[1]!.trim());
}

const docs = readFileSync(path.join(REPO_ROOT, 'docs/deployment.md'), 'utf8');
const flySection = docs.slice(docs.indexOf('## Fly.io'), docs.indexOf('## Kubernetes'));

test('the documented first deploy creates one Machine, in fly.toml and in docs/deployment.md', () => {
  for (const [where, source] of [
    ['fly.toml', text],
    ['docs/deployment.md', flySection],
  ] as const) {
    const commands = flyCommands(source);
    const launch = commands.filter((c) => c.startsWith('fly launch'));
    const deploy = commands.filter((c) => c.startsWith('fly deploy'));
    assert.ok(launch.length > 0 && deploy.length > 0, `${where} shows fly launch and fly deploy`);
    // `fly launch` deploys (two Machines) unless told not to; `fly deploy` creates two without --ha=false.
    for (const c of launch) assert.match(c, /--no-deploy\b/, `${where}: ${c}`);
    for (const c of deploy) assert.match(c, /--ha=false\b/, `${where}: ${c}`);
  }
});

test('scaling past one Machine sets MCP_REDIS_URL first, in both files', () => {
  for (const [where, source] of [
    ['fly.toml', text],
    ['docs/deployment.md', flySection],
  ] as const) {
    const commands = flyCommands(source);
    const redis = commands.findIndex((c) => /^fly secrets set .*\bMCP_REDIS_URL=/.test(c));
    const scale = commands.findIndex((c) => /^fly scale count ([2-9]|\d\d)/.test(c));
    assert.ok(redis >= 0, `${where} sets MCP_REDIS_URL with fly secrets set`);
    assert.ok(scale > redis, `${where} scales out only after MCP_REDIS_URL is set`);
  }
  assert.deepEqual(
    flyCommands(text).filter((c) => !c.startsWith('fly ssh') && !c.startsWith('fly volumes')),
    flyCommands(flySection),
    'fly.toml and docs/deployment.md show the same commands',
  );
});
