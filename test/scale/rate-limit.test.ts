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
  const statuses: number[] = [];
  for (let id = 1; id <= 6; id++) {
    const reply = await callTool2026(cluster.url, id, 'echo', { text: String(id) });
    statuses.push(reply.status);
    if (reply.status === 429) {
      assert.equal(rpcError(reply.body)?.code, ErrorCode.RateLimited);
      assert.ok(Number(reply.headers.get('retry-after')) >= 1);
    } else {
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
    }
  }
  const calls = cluster.proxy.log.filter((e) => e.method === 'POST');
  assert.deepEqual(new Set(calls.map((e) => e.upstream)), new Set([0, 1]), 'calls reached both replicas');
  // Two at once, plus at most one refilled while the six calls ran.
  assert.ok(statuses.filter((s) => s === 200).length <= 3, `statuses: ${statuses.join(', ')}`);
  const limited = calls.filter((e) => e.status === 429).map((e) => e.upstream);
  assert.deepEqual(
    new Set(limited),
    new Set([0, 1]),
    'both replicas refused once the shared bucket was empty',
  );
});
