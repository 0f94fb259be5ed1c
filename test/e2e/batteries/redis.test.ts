/**
 * Rate limits across replicas: two real servers (serve()) share `MCP_REDIS_URL` on a real
 * `redis-server`, so a client's bucket is one bucket whichever replica it reaches. When Redis
 * goes away, `MCP_RATE_LIMIT_FAIL` decides: `open` lets calls through and /readyz stays 200
 * naming the degradation; `closed` answers 503 and /readyz 503. Both recover with Redis.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../../src/base/errors.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { callTool2026, ECHO_PLUGIN, type InProcessServer, rpcError, startServer, until } from './helpers.ts';

const KEY = `shared-${randomBytes(16).toString('hex')}`;
const auth = { 'x-api-key': KEY };

let redis: RedisServer;
let open: InProcessServer;
let closed: InProcessServer;

before(async () => {
  redis = await startRedisServer();
  const common = {
    MCP_AUTH: 'api_key',
    MCP_API_KEYS: `shared:${KEY}`,
    // One token a second, two at once: nothing refills within one test step.
    MCP_RATE_LIMIT_RPS: '1',
    MCP_RATE_LIMIT_BURST: '2',
    MCP_REDIS_URL: redis.url,
    // Replicas sharing Redis must share the key that seals 2026-wire requestState.
    MCP_STATE_SECRET: randomBytes(32).toString('hex'),
    MCP_PLUGINS: ECHO_PLUGIN,
  };
  open = await startServer({ ...common, MCP_RATE_LIMIT_FAIL: 'open' });
  closed = await startServer({ ...common, MCP_RATE_LIMIT_FAIL: 'closed' });
});
after(async () => {
  await open?.stop();
  await closed?.stop();
  await redis?.stop();
});

interface Readyz {
  status: number;
  body: { status: string; checks: Record<string, { ok: boolean; detail?: string }> };
}

async function readyz(server: InProcessServer): Promise<Readyz> {
  const res = await fetch(`${server.origin}/readyz`);
  return { status: res.status, body: (await res.json()) as Readyz['body'] };
}

/**
 * Empties the client's bucket through one replica (until it answers 429), then calls the
 * other: its very first answer is 429 only if the bucket is shared. Retried once, in case the
 * bucket refilled (1 token/s) between the two steps on a loaded machine.
 */
async function assertSharedBucket(): Promise<void> {
  let id = 100;
  for (let attempt = 0; attempt < 2; attempt++) {
    let drained = false;
    for (let i = 0; i < 10 && !drained; i++) {
      const reply = await callTool2026(open.url, id++, 'echo', { text: 'a' }, auth);
      assert.ok(reply.status === 200 || reply.status === 429, JSON.stringify(reply.body));
      drained = reply.status === 429;
    }
    assert.ok(drained, 'the bucket (burst 2) empties within 10 calls');
    const other = await callTool2026(closed.url, id++, 'echo', { text: 'b' }, auth);
    if (other.status === 429) {
      assert.equal(rpcError(other.body)?.code, ErrorCode.RateLimited);
      return;
    }
  }
  assert.fail('the other replica did not see the emptied bucket');
}

describe('rate limits in Redis', () => {
  test('two replicas sharing MCP_REDIS_URL share a client bucket', async () => {
    assert.equal((await readyz(open)).status, 200);
    assert.equal((await readyz(closed)).status, 200);
    await assertSharedBucket();
  });

  test('Redis down: fail open lets calls through and /readyz names the degradation; fail closed is 503', async () => {
    await redis.stop();
    await until(async () => (await readyz(closed)).status === 503, 5000, 'the outage to be noticed');

    // Over the bucket and still served: limits are not enforced while Redis is away.
    for (const id of [1, 2, 3, 4]) {
      const reply = await callTool2026(open.url, id, 'echo', { text: 'c' }, auth);
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
    }
    const openReady = await readyz(open);
    assert.equal(openReady.status, 200);
    assert.equal(openReady.body.status, 'degraded');
    assert.equal(openReady.body.checks.rateLimit?.ok, true);
    assert.match(openReady.body.checks.rateLimit?.detail ?? '', /Redis/);

    const refused = await callTool2026(closed.url, 5, 'echo', { text: 'd' }, auth);
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    assert.equal(rpcError(refused.body)?.code, ErrorCode.ServiceUnavailable);
    const closedReady = await readyz(closed);
    assert.equal(closedReady.status, 503);
    assert.equal(closedReady.body.checks.rateLimit?.ok, false);
    assert.match(closedReady.body.checks.rateLimit?.detail ?? '', /Redis/);
  });

  test('Redis back: both replicas are ready and limiting again', async () => {
    await redis.restart();
    await until(
      async () =>
        (await readyz(closed)).body.status === 'ready' && (await readyz(open)).body.status === 'ready',
      10_000,
      'both replicas to reconnect',
    );
    await assertSharedBucket();
  });
});
