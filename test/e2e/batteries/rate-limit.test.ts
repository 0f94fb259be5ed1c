/**
 * Rate limits on the real server (serve(), in-memory buckets), `MCP_RATE_LIMIT_RPS=2`,
 * burst 2, one bucket per API key: a burst over the limit is 429 with `Retry-After` and
 * -32038 while another key is not throttled; a 2025-03-26 batch costs one token per request,
 * all or nothing (one 429 for the whole batch, the bucket left as it was); a tool's own
 * `rateLimit` holds per client.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../../src/base/errors.ts';
import {
  BATTERIES_PLUGIN,
  callTool2026,
  ECHO_PLUGIN,
  type InProcessServer,
  openSession,
  post,
  type RpcReply,
  rpcError,
  rpcResult,
  startServer,
  textOf,
} from './helpers.ts';

const KEYS = Object.fromEntries(
  ['burst', 'other', 'batch', 'notify', 'tool', 'tool2'].map((id) => [
    id,
    `${id}-${randomBytes(16).toString('hex')}`,
  ]),
) as Record<'burst' | 'other' | 'batch' | 'notify' | 'tool' | 'tool2', string>;

let server: InProcessServer;

before(async () => {
  server = await startServer({
    MCP_AUTH: 'api_key',
    MCP_API_KEYS: Object.entries(KEYS)
      .map(([id, key]) => `${id}:${key}`)
      .join(','),
    MCP_RATE_LIMIT_RPS: '2',
    MCP_RATE_LIMIT_BURST: '2',
    MCP_PLUGINS: `${ECHO_PLUGIN},${BATTERIES_PLUGIN}`,
  });
});
after(() => server?.stop());

function assertRateLimited(reply: RpcReply, id: unknown): void {
  assert.equal(reply.status, 429, JSON.stringify(reply.body));
  const retryAfter = reply.headers.get('retry-after') ?? '';
  assert.match(retryAfter, /^\d+$/, 'Retry-After is whole seconds');
  assert.ok(Number(retryAfter) >= 1);
  assert.equal(rpcError(reply.body)?.code, ErrorCode.RateLimited);
  assert.equal((reply.body as { id?: unknown }).id, id);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('per-client rate limits', () => {
  test('a burst over the limit gets 429 with Retry-After, and another client is not throttled', async () => {
    const replies = await Promise.all(
      [1, 2, 3, 4, 5, 6, 7, 8].map((id) =>
        callTool2026(server.url, id, 'echo', { text: 'x' }, { 'x-api-key': KEYS.burst }),
      ),
    );
    const ok = replies.filter((r) => r.status === 200);
    const limited = replies.map((r, i) => ({ r, id: i + 1 })).filter(({ r }) => r.status === 429);
    assert.ok(ok.length >= 1, 'the bucket lets the first calls through');
    assert.ok(limited.length >= 1, 'eight calls at once overflow a bucket of 2');
    assert.equal(ok.length + limited.length, replies.length, 'every reply is 200 or 429');
    for (const { r, id } of limited) assertRateLimited(r, id);

    // The other key has its own full bucket.
    for (const id of [10, 11]) {
      const reply = await callTool2026(server.url, id, 'echo', { text: 'free' }, { 'x-api-key': KEYS.other });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.equal(textOf(rpcResult(reply.body)), 'free');
    }
  });

  test('a 2025-03-26 batch of 3 against a bucket of 2: one 429 for the batch, the bucket not drained', async () => {
    const auth = { 'x-api-key': KEYS.batch };
    const session = await openSession(server.url, auth, '2025-03-26');
    const headers = { ...auth, 'mcp-session-id': session, 'mcp-protocol-version': '2025-03-26' };
    // The handshake took both tokens; let the bucket refill (2 per second).
    await sleep(1100);
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: `m${id}` } },
    });

    const refused = await post(server.url, [call(1), call(2), call(3)], headers);
    assert.equal(refused.status, 429);
    assert.ok(!Array.isArray(refused.body), 'one error for the whole batch, not one per member');
    assertRateLimited(refused, null);

    // Right after: a batch of 2 needs the whole bucket, so it passes only if nothing was taken.
    const accepted = await post(server.url, [call(4), call(5)], headers);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.ok(Array.isArray(accepted.body));
    const texts = (accepted.body as { id: number; result: unknown }[])
      .sort((a, b) => a.id - b.id)
      .map((m) => textOf(m.result));
    assert.deepEqual(texts, ['m4', 'm5']);
  });
});

describe('what costs a token', () => {
  test('a lone notification costs nothing, as it does inside a batch', async () => {
    const auth = { 'x-api-key': KEYS.notify };
    // initialize costs 1 of the 2 tokens; notifications/initialized should cost none.
    const session = await openSession(server.url, auth);
    const reply = await callTool2026(server.url, 1, 'echo', { text: 'x' }, auth);
    assert.ok(session);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
  });
});

describe("a tool's own rate limit", () => {
  test('rateLimit { rps: 1, burst: 1 } refuses the second call of a client, not another client', async () => {
    const first = await callTool2026(server.url, 1, 'limited', {}, { 'x-api-key': KEYS.tool });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(textOf(rpcResult(first.body)), 'ok');

    const second = await callTool2026(server.url, 2, 'limited', {}, { 'x-api-key': KEYS.tool });
    assertRateLimited(second, 2);
    assert.match(rpcError(second.body)?.message ?? '', /limited/, 'the message names the tool');

    const other = await callTool2026(server.url, 3, 'limited', {}, { 'x-api-key': KEYS.tool2 });
    assert.equal(other.status, 200, JSON.stringify(other.body));
    assert.equal(textOf(rpcResult(other.body)), 'ok');
  });
});
