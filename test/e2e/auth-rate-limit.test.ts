/**
 * Failed authentication counts against the rate limit per client address (docs/auth.md,
 * "Failed authentication and the rate limit"), on the MCP endpoint and on a plugin's route
 * alike, with buckets in process memory and in a real redis-server, on the standalone server
 * (serve()) and the Fastify plugin. Behind a trusted proxy (MCP_TRUST_PROXY, Fastify's
 * `trustProxy`), X-Forwarded-For gives each caller its own address. With a bucket of 3 (one
 * token a second) on a clock frozen for the memory store (node:test's mock of Date, which the
 * store reads): three bad keys from one address are 401, the fourth is 429 with Retry-After,
 * and so is then the good key from that address (its credentials are not checked again until
 * the bucket refills), while the good key from another address is served. Without credentials
 * the same; failures on a plugin route and on /mcp fill one bucket. Redis keeps its own clock,
 * so there a burst of bad keys sent at once is partly refused with 429 while another address is
 * served (the exact sequence on Redis: test/ratelimit/limiter-contract.ts).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, beforeEach, describe, mock, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { ErrorCode } from '../../src/base/errors.ts';
import mcpToolkit from '../../src/fastify.ts';
import hooksPlugin from '../fixtures/routes/plugin.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';
import {
  callTool2026,
  type InProcessServer,
  type RpcReply,
  rpcError,
  startServer,
} from './batteries/helpers.ts';

const KEY = 'good-key-0123456789abcdef0123456789';
const BAD = 'bad-key-0123456789abcdef0123456789ab';
const ROUTES_PLUGIN = './test/fixtures/routes/plugin.ts';
/** A bucket of 3, one token back a second (none on the frozen clock). */
const LIMITS = { MCP_RATE_LIMIT_RPS: '1', MCP_RATE_LIMIT_BURST: '3' };

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly code: number | undefined;
  readonly message: string;
}

function fromRpc(reply: RpcReply): Answer {
  const error = rpcError(reply.body);
  return {
    status: reply.status,
    retryAfter: reply.headers.get('retry-after'),
    code: error?.code,
    message: error?.message ?? '',
  };
}

/** An MCP call (2026 wire, one token) as the client at `address`, with `key` (none: no credentials). */
async function mcpCall(url: string, address: string, key: string | undefined, id: number): Promise<Answer> {
  const headers: Record<string, string> = { 'x-forwarded-for': address };
  if (key !== undefined) headers['x-api-key'] = key;
  return fromRpc(await callTool2026(url, id, 'event_count', {}, headers));
}

/** The plugin's authenticated route as the client at `address`. */
async function adminRoute(origin: string, address: string, key: string | undefined): Promise<Answer> {
  const headers: Record<string, string> = { 'x-forwarded-for': address };
  if (key !== undefined) headers['x-api-key'] = key;
  const res = await fetch(`${origin}/admin/stats`, { headers });
  const text = await res.text();
  const body = text === '' ? undefined : (JSON.parse(text) as { error?: { code: number; message: string } });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    code: body?.error?.code,
    message: body?.error?.message ?? '',
  };
}

function assertUnauthorized(answer: Answer, what: string): void {
  assert.equal(answer.status, 401, `${what}: ${JSON.stringify(answer)}`);
  assert.equal(answer.code, ErrorCode.Unauthorized, what);
}

function assertLimited(answer: Answer, what: string): void {
  assert.equal(answer.status, 429, `${what}: ${JSON.stringify(answer)}`);
  assert.equal(answer.code, ErrorCode.RateLimited, what);
  assert.match(answer.retryAfter ?? '', /^\d+$/, `${what}: Retry-After in whole seconds`);
  assert.ok(
    Number(answer.retryAfter) >= 1 && Number(answer.retryAfter) <= 5,
    `${what}: ${answer.retryAfter}`,
  );
  assert.match(answer.message, /failed authentications from this address: retry after \d+ s/, what);
}

/** The exact cases, on a frozen clock (buckets in memory). */
function cases(target: () => { url: string; origin: string }): void {
  const at = (n: number) => `198.51.100.${n}`;
  // Each case a minute after the one before: every bucket is full again when it starts.
  let minute = 0;
  beforeEach(() => {
    minute += 1;
    mock.timers.enable({ apis: ['Date'], now: 1_700_000_000_000 + minute * 60_000 });
  });
  afterEach(() => mock.timers.reset());

  test('three bad keys on /mcp are 401, the fourth 429 with Retry-After; the good key from there waits, from elsewhere it is served', async () => {
    const { url, origin } = target();
    for (let i = 1; i <= 3; i += 1) assertUnauthorized(await mcpCall(url, at(1), BAD, i), `bad key ${i}`);
    assertLimited(await mcpCall(url, at(1), BAD, 4), 'bad key 4');
    assertLimited(await mcpCall(url, at(1), KEY, 5), 'the good key from the same address');
    assertLimited(await adminRoute(origin, at(1), KEY), 'a plugin route from the same address');

    const served = await mcpCall(url, at(2), KEY, 6);
    assert.equal(served.status, 200, JSON.stringify(served));
    assert.equal(served.code, undefined);
    const page = await adminRoute(origin, at(2), KEY);
    assert.equal(page.status, 200, JSON.stringify(page));
  });

  test('failures on a plugin route and on /mcp fill one bucket per address, with no credentials too', async () => {
    const { url, origin } = target();
    assertUnauthorized(await adminRoute(origin, at(3), BAD), 'route, bad key');
    assertUnauthorized(await adminRoute(origin, at(3), undefined), 'route, no key');
    assertUnauthorized(await mcpCall(url, at(3), undefined, 1), '/mcp, no key');
    assertLimited(await adminRoute(origin, at(3), BAD), 'route, fourth failure');
    assertLimited(await mcpCall(url, at(3), BAD, 2), '/mcp after it');
    // The good client's own bucket was not spent by any of it.
    for (let i = 0; i < 3; i += 1) {
      assert.equal((await mcpCall(url, at(4), KEY, 10 + i)).status, 200, `good call ${i + 1}`);
    }
  });
}

describe('standalone server, buckets in memory', () => {
  let server: InProcessServer;
  before(async () => {
    server = await startServer({
      MCP_AUTH: 'api_key',
      MCP_API_KEYS: `good:${KEY}`,
      MCP_PLUGINS: ROUTES_PLUGIN,
      MCP_TRUST_PROXY: '127.0.0.1',
      ...LIMITS,
    });
  });
  after(() => server?.stop());
  cases(() => server);
});

describe('standalone server, buckets in a real redis-server', () => {
  let redis: RedisServer;
  let server: InProcessServer;
  before(async () => {
    redis = await startRedisServer();
    server = await startServer({
      MCP_AUTH: 'api_key',
      MCP_API_KEYS: `good:${KEY}`,
      MCP_PLUGINS: ROUTES_PLUGIN,
      MCP_TRUST_PROXY: '127.0.0.1',
      MCP_REDIS_URL: redis.url,
      MCP_STATE_SECRET: randomBytes(32).toString('hex'),
      MCP_RATE_LIMIT_FAIL: 'closed',
      ...LIMITS,
    });
  });
  after(async () => {
    await server?.stop();
    await redis?.stop();
  });

  test('a burst of bad keys from one address is refused with 429 past the bucket; the good key from another is served', async () => {
    // Twelve at once against a bucket of 3: however slowly they are served, fewer than nine
    // seconds pass, so fewer than nine tokens come back and at least one is refused.
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? mcpCall(server.url, '198.51.101.1', BAD, i)
          : adminRoute(server.origin, '198.51.101.1', BAD),
      ),
    );
    const limited = answers.filter((a) => a.status === 429);
    assert.ok(limited.length >= 1, `statuses: ${answers.map((a) => a.status).join(',')}`);
    for (const a of answers) if (a.status !== 429) assertUnauthorized(a, 'a bad key let through to auth');
    for (const a of limited) {
      assert.equal(a.code, ErrorCode.RateLimited);
      assert.match(a.retryAfter ?? '', /^[1-9]\d*$/);
      assert.match(a.message, /failed authentications from this address/);
    }
    const served = await mcpCall(server.url, '198.51.101.2', KEY, 20);
    assert.equal(served.status, 200, JSON.stringify(served));
    const page = await adminRoute(server.origin, '198.51.101.2', KEY);
    assert.equal(page.status, 200, JSON.stringify(page));
  });
});

describe('the Fastify plugin', () => {
  let app: FastifyInstance;
  let origin = '';
  before(async () => {
    app = Fastify({ logger: false, trustProxy: '127.0.0.1' });
    await app.register(mcpToolkit, {
      plugins: [hooksPlugin],
      settings: {
        MCP_AUTH: 'api_key',
        MCP_API_KEYS: [`good:${KEY}`],
        MCP_RATE_LIMIT_RPS: 1,
        MCP_RATE_LIMIT_BURST: 3,
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    assert.ok(address && typeof address === 'object');
    origin = `http://127.0.0.1:${address.port}`;
  });
  after(() => app?.close());
  cases(() => ({ url: `${origin}/mcp`, origin }));
});
