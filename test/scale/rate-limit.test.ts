/**
 * A client's rate limit holds across replicas: its bucket lives in the shared Redis, so a
 * round-robin proxy spreading its calls over two replicas does not double its allowance.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ErrorCode } from '../../src/base/errors.ts';
import { callTool2026, rpcError } from '../e2e/batteries/helpers.ts';
import { type Cluster, startCluster } from './cluster.ts';

let cluster: Cluster;
before(async () => {
  // One call a second, two at once: two replicas with a bucket each would allow four at once.
  cluster = await startCluster({ MCP_RATE_LIMIT_RPS: '1', MCP_RATE_LIMIT_BURST: '2' });
});
after(() => cluster?.stop());

test('one bucket per client across both replicas behind the proxy', async () => {
  // Sent at once, so the bucket refills little while they run, however loaded the machine;
  // what did refill is counted from the time they took.
  const started = performance.now();
  const replies = await Promise.all(
    Array.from({ length: 12 }, (_, i) => callTool2026(cluster.url, i + 1, 'echo', { text: String(i + 1) })),
  );
  const seconds = (performance.now() - started) / 1000;
  const statuses = replies.map((r) => r.status);
  for (const reply of replies) {
    if (reply.status === 429) {
      assert.equal(rpcError(reply.body)?.code, ErrorCode.RateLimited);
      assert.ok(Number(reply.headers.get('retry-after')) >= 1);
    } else {
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
    }
  }
  const calls = cluster.proxy.log.filter((e) => e.method === 'POST');
  assert.deepEqual(new Set(calls.map((e) => e.upstream)), new Set([0, 1]), 'calls reached both replicas');
  // Two at once, plus one a second while they ran; a bucket per replica would allow four at once.
  const allowed = 2 + Math.ceil(seconds);
  assert.ok(
    statuses.filter((s) => s === 200).length <= allowed,
    `statuses: ${statuses.join(', ')}; at most ${allowed} in ${seconds.toFixed(1)} s`,
  );
  const limited = calls.filter((e) => e.status === 429).map((e) => e.upstream);
  assert.deepEqual(
    new Set(limited),
    new Set([0, 1]),
    'both replicas refused once the shared bucket was empty',
  );
});
