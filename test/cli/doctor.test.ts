/**
 * `doctor` against real dependencies on loopback: a loopback OAuth issuer, a real
 * `redis-server`, an OTLP receiver and a temporary filesystem root. A good configuration
 * passes with exit 0; each broken dependency or setting gives its own ✗ line and exit 1;
 * secrets never reach the output.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { doctor } from '../../src/cli/doctor.ts';
import { startTokenIssuer, type TokenIssuer } from '../auth/token-issuer.ts';
import { freePort } from '../e2e/batteries/helpers.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';

const STATE_SECRET = randomBytes(32).toString('hex');

let issuer: TokenIssuer;
let keyless: TokenIssuer;
let redis: RedisServer;
let receiver: OtlpReceiver;
let dir: string;
let closedPort: number;

before(async () => {
  [issuer, keyless, redis, receiver] = await Promise.all([
    startTokenIssuer(),
    startTokenIssuer(),
    startRedisServer(),
    startOtlpReceiver(),
  ]);
  await issuer.addKey('ES256');
  dir = await mkdtemp(join(tmpdir(), 'mcp-doctor-'));
  closedPort = await freePort();
});
after(async () => {
  await Promise.all([issuer?.close(), keyless?.close(), redis?.stop(), receiver?.close()]);
  await rm(dir, { recursive: true, force: true });
});

/** A configuration where everything is reachable and valid. */
function goodEnv(): Record<string, string> {
  return {
    MCP_TRANSPORT: 'http',
    MCP_AUTH: 'oauth',
    MCP_OAUTH_ISSUER: issuer.issuer,
    MCP_PUBLIC_URL: 'https://mcp.example.test',
    MCP_REDIS_URL: redis.url,
    MCP_STATE_SECRET: STATE_SECRET,
    MCP_OTEL_ENDPOINT: receiver.url,
    MCP_PLUGINS: 'filesystem',
    MCP_FILESYSTEM_ROOT: dir,
  };
}

async function run(env: Record<string, string>): Promise<{ code: number; lines: string[]; output: string }> {
  const lines: string[] = [];
  const code = await doctor(env, (line) => lines.push(line));
  return { code, lines, output: lines.join('\n') };
}

const checks = (lines: string[], mark: '✓' | '✗') => lines.filter((l) => l.startsWith(`${mark} `));

/** Exactly one ✗ line, matching `pattern`, and exit code 1. */
function assertOneFailure(result: Awaited<ReturnType<typeof run>>, pattern: RegExp): void {
  assert.equal(result.code, 1, result.output);
  const failed = checks(result.lines, '✗');
  assert.equal(failed.length, 1, `one ✗ line expected:\n${result.output}`);
  assert.match(failed[0] ?? '', pattern);
  assert.match(result.output, /doctor: 1 check\(s\) failed/);
}

describe('doctor', () => {
  test('a good configuration passes every check with exit 0', async () => {
    const result = await run(goodEnv());
    assert.equal(result.code, 0, result.output);
    assert.deepEqual(checks(result.lines, '✗'), []);
    const ok = checks(result.lines, '✓').join('\n');
    assert.match(ok, /✓ settings are valid/);
    assert.match(ok, /✓ auth: MCP_AUTH=oauth, tokens for https:\/\/mcp\.example\.test\/mcp/);
    assert.match(
      ok,
      /✓ OAuth issuer metadata: http:\/\/127\.0\.0\.1:\d+ \(jwks_uri http:\/\/127\.0\.0\.1:\d+\/jwks\)/,
    );
    assert.match(ok, /✓ OAuth JWKS: 1 signing key\(s\)/);
    assert.match(ok, /✓ Redis reachable: redis:\/\/127\.0\.0\.1:\d+ \(PING → PONG\)/);
    assert.match(
      ok,
      /✓ OTLP endpoint accepts exports: http:\/\/127\.0\.0\.1:\d+\/v1\/traces \(HTTP 200, http\/protobuf\)/,
    );
    assert.match(ok, /✓ plugin filesystem: filesystem root is writable/);
    assert.match(ok, /✓ registered \d+ tools/);
    assert.match(result.output, /doctor: all checks passed/);
    assert.ok(
      receiver.requests.some((r) => r.path === '/v1/traces'),
      'the OTLP probe reached the receiver',
    );
  });

  test('the issuer down: its metadata check fails', async () => {
    const result = await run({ ...goodEnv(), MCP_OAUTH_ISSUER: `http://127.0.0.1:${closedPort}` });
    assertOneFailure(result, /^✗ OAuth issuer metadata: No authorisation server metadata/);
  });

  test('an issuer whose JWKS holds no key: the JWKS check fails', async () => {
    const result = await run({ ...goodEnv(), MCP_OAUTH_ISSUER: keyless.issuer });
    assertOneFailure(result, /^✗ OAuth JWKS: .* holds no asymmetric signing key/);
  });

  test('Redis down: the PING check fails within the probe timeout', async () => {
    const result = await run({ ...goodEnv(), MCP_REDIS_URL: `redis://127.0.0.1:${closedPort}` });
    assertOneFailure(result, /^✗ Redis unreachable: redis:\/\/127\.0\.0\.1:\d+ \(.*ECONNREFUSED/);
  });

  test('the OTLP endpoint down: the reachability check fails', async () => {
    const result = await run({ ...goodEnv(), MCP_OTEL_ENDPOINT: `http://127.0.0.1:${closedPort}` });
    assertOneFailure(
      result,
      /^✗ OTLP endpoint unreachable: http:\/\/127\.0\.0\.1:\d+\/v1\/traces \(ECONNREFUSED\)/,
    );
  });

  test('an endpoint that answers but refuses exports (here 404 on a wrong path) fails', async () => {
    const { MCP_OTEL_ENDPOINT: _, ...env } = goodEnv();
    const result = await run({ ...env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/wrong/path` });
    assertOneFailure(
      result,
      /^✗ OTLP endpoint refused an empty export: http:\/\/127\.0\.0\.1:\d+\/wrong\/path \(HTTP 404/,
    );
  });

  test('OTEL_* are honoured: http/json with the configured headers; header values are not printed', async () => {
    const { MCP_OTEL_ENDPOINT: _, ...env } = goodEnv();
    const before = receiver.requests.length;
    const result = await run({
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=s3cret',
    });
    assert.deepEqual(checks(result.lines, '✗'), []);
    assert.match(result.output, /✓ OTLP endpoint accepts exports: .*\(HTTP 200, http\/json\)/);
    const probe = receiver.requests.slice(before).find((r) => r.path === '/v1/traces');
    assert.equal(probe?.contentType, 'application/json');
    assert.equal(probe?.headers['x-collector-key'], 's3cret');
    assert.doesNotMatch(result.output, /s3cret/);
  });

  test('a bad OTEL_* value fails its own check', async () => {
    const result = await run({ ...goodEnv(), OTEL_TRACES_SAMPLER: 'sometimes' });
    assertOneFailure(result, /^✗ OpenTelemetry settings: OTEL_TRACES_SAMPLER="sometimes" is invalid/);
  });

  test('a filesystem root that is a file: the plugin check fails', async () => {
    const file = join(dir, 'not-a-folder.txt');
    await writeFile(file, 'x');
    const result = await run({ ...goodEnv(), MCP_FILESYSTEM_ROOT: file });
    assertOneFailure(
      result,
      /^✗ plugin filesystem: filesystem root is a folder \(MCP_FILESYSTEM_ROOT names a file/,
    );
  });

  test('a bad setting: the settings check fails and names the variable', async () => {
    const result = await run({ ...goodEnv(), MCP_HTTP_PORT: 'eighty' });
    assert.equal(result.code, 1);
    assert.match(checks(result.lines, '✗')[0] ?? '', /^✗ settings: MCP_HTTP_PORT="eighty" is invalid/);
  });

  test('MCP_REDIS_URL without MCP_STATE_SECRET: the settings check fails, the others still run', async () => {
    const { MCP_STATE_SECRET: _secret, ...withoutSecret } = goodEnv();
    const result = await run(withoutSecret);
    assertOneFailure(result, /^✗ settings: MCP_STATE_SECRET is required when MCP_REDIS_URL is set/);
    assert.match(result.output, /✓ Redis reachable/);
  });

  test('incomplete auth settings: the auth check fails as start-up would', async () => {
    const { MCP_OAUTH_ISSUER: _issuer, ...withoutIssuer } = goodEnv();
    assertOneFailure(await run(withoutIssuer), /^✗ auth: MCP_AUTH=oauth needs MCP_OAUTH_ISSUER/);
    assertOneFailure(
      await run({ ...goodEnv(), MCP_AUTH: 'api_key' }),
      /^✗ auth: MCP_AUTH=api_key needs MCP_API_KEYS/,
    );
  });

  test('secrets are masked in every line', async () => {
    const apiKey = `key-${randomBytes(16).toString('hex')}`;
    const stateSecret = `state-${randomBytes(16).toString('hex')}`;
    const redisPassword = `pw-${randomBytes(16).toString('hex')}`;
    const result = await run({
      ...goodEnv(),
      MCP_AUTH: 'api_key',
      MCP_API_KEYS: `ci:${apiKey}`,
      MCP_STATE_SECRET: stateSecret,
      MCP_REDIS_URL: `redis://:${redisPassword}@127.0.0.1:${redis.port}`,
    });
    for (const secret of [apiKey, stateSecret, redisPassword, STATE_SECRET]) {
      assert.ok(!result.output.includes(secret), `a secret is printed:\n${result.output}`);
    }
    assert.match(result.output, /MCP_API_KEYS="••••••"/);
    assert.match(result.output, /MCP_STATE_SECRET="••••••"/);
    assert.match(result.output, /redis:\/\/:••••••@127\.0\.0\.1/);
    assert.match(result.output, /✓ auth: MCP_AUTH=api_key with 1 key\(s\)/);
  });

  test('MCP_API_KEYS_FILE: its keys are counted, and a broken file is named without a key', async () => {
    const inline = `key-${randomBytes(16).toString('hex')}`;
    const scoped = `key-${randomBytes(16).toString('hex')}`;
    const file = join(dir, 'keys.json');
    await writeFile(file, JSON.stringify([{ id: 'reader', key: scoped, scopes: ['notes:read'] }]));
    const env = { ...goodEnv(), MCP_AUTH: 'api_key', MCP_API_KEYS: `ci:${inline}`, MCP_API_KEYS_FILE: file };
    const good = await run(env);
    assert.match(good.output, /✓ auth: MCP_AUTH=api_key with 2 key\(s\), 1 scoped \(MCP_API_KEYS_FILE\)/);
    await writeFile(file, JSON.stringify([{ id: 'reader', key: scoped, scopes: 'notes:read' }]));
    const bad = await run(env);
    assertOneFailure(
      bad,
      /^✗ auth: MCP_API_KEYS_FILE .*keys\.json: entry 1 \("reader"\): "scopes" must be a list/,
    );
    for (const secret of [inline, scoped]) assert.ok(!`${good.output}${bad.output}`.includes(secret));
  });
});
