/**
 * A task runs through a 10 s Redis outage with the default settings (MCP_TASK_LEASE_MS 15 s;
 * docs/deployment.md, "Tasks in Redis"): two real replicas of the CLI over one real
 * `redis-server` that keeps its data (an append-only file). The outage starts just before the
 * replica running the task would write its lease again, the worst moment: the write it misses
 * and the time Redis is away add up to the longest gap a lease must outlast. The other replica
 * polls the task throughout: it is never `failed`, and it completes after the outage.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient } from '../../src/redis/client.ts';
import type { Message } from '../conformance/http-fixture.ts';
import { type Cluster, startCluster, until } from '../scale/cluster.ts';
import { taskRpc } from './http-2026.ts';

/** The default MCP_TASK_LEASE_MS, and the renewal period (a third of it). */
const LEASE_MS = 15_000;
const PERIOD_MS = LEASE_MS / 3;
const OUTAGE_MS = 10_000;

let cluster: Cluster;
let probe: Redis;
before(async () => {
  cluster = await startCluster({ MCP_PLUGINS: 'conformance,./test/tasks/fixtures/task-plugin.ts' }, 2, {
    persistent: true,
  });
  probe = createRedisClient(cluster.redis.url);
  probe.on('error', () => {}); // the outage under test
  await probe.connect();
});
after(async () => {
  probe?.disconnect();
  await cluster?.stop();
});

const replica = (i: number) => (cluster.replicas[i] as { url: string }).url;

test('a task runs through a 10 s Redis outage with the default lease, never failed', async () => {
  const created = await taskRpc(replica(0), 'tools/call', {
    name: 'slow_compute',
    arguments: { seconds: 20, label: 'through the outage' },
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const taskId = String((created.body.result as Message).taskId);
  const record = JSON.parse((await probe.hget(`mcp-toolkit:task:${taskId}`, 'data')) ?? '{}') as {
    runner?: string;
  };
  assert.ok(record.runner, 'the task names the replica running it');
  const lease = `mcp-toolkit:replica:${record.runner}`;

  // Wait for a lease write (its time to live jumps up), then for the moment just before the next.
  let written = 0;
  await until(
    async () => {
      const left = await probe.pttl(lease);
      const jumped = written > 0 && left > written;
      written = Math.max(written, left);
      return jumped;
    },
    3 * PERIOD_MS,
    'a lease write',
  );
  written = await probe.pttl(lease);
  await until(
    async () => (await probe.pttl(lease)) <= written - PERIOD_MS + 150,
    2 * PERIOD_MS,
    'the next write',
  );

  const seen = new Set<string>();
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const { status, body } = await taskRpc(replica(1), 'tasks/get', { taskId }).catch(() => ({
        status: 0,
        body: {} as Message,
      }));
      if (status === 200) seen.add(String((body.result as Message).status));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    await cluster.redis.stop();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await cluster.redis.restart();
    await until(() => seen.has('completed') || seen.has('failed'), 60_000, 'the task to end');
  } finally {
    polling = false;
    await poller;
  }
  assert.ok(!seen.has('failed'), `never failed: ${[...seen].join(', ')}`);
  const done = await taskRpc(replica(1), 'tasks/get', { taskId });
  assert.equal((done.body.result as Message).status, 'completed');
  assert.match(JSON.stringify(done.body.result), /Computed through the outage in 20 s/);
});
