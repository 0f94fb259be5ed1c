/**
 * A Redis Cluster node failover (docs/deployment.md, "Redis Sentinel or Cluster"): three real
 * replicas of the CLI share a cluster of three masters, each with a replica of its own
 * (`--cluster-replicas 1`). The master holding a running task's record is SIGKILLed; the
 * cluster promotes its replica. Every replica of the server is ready again, every 2025-wire
 * session a client was given still answers on every replica, the task held at its gate across
 * the kill completes where it ran and another replica reads its result, and a task created
 * after the failover runs too.
 *
 * Replication in a cluster is asynchronous and nothing here waits for it on each write (as
 * `WAIT 1` does through Sentinel), so the test lets the replicas catch up before the kill:
 * what is checked is that the server follows the new master, not that Redis kept a write it
 * had not yet copied. Real redis-server processes on loopback; every wait is for an event,
 * bounded for a machine at load 20 and more.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Message } from '../conformance/http-fixture.ts';
import { openSession, post, V2025 } from '../e2e/batteries/helpers.ts';
import { type RedisCluster, startRedisCluster } from '../helpers/redis-topologies.ts';
import { createTask, isTerminal, pollTaskOn } from '../tasks/http-2026.ts';
import { type ReplicaSet, readyz, startReplicas, until } from './cluster.ts';
import { EVENT_WAIT_MS, REPLICA_ENV, within } from './streams.ts';

let dir: string;
let redis: RedisCluster;
let set: ReplicaSet;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-cluster-failover-'));
  redis = await startRedisCluster({ replicas: 1 });
  set = await startReplicas(redis.url, REPLICA_ENV, 3);
});
after(async () => {
  await set?.stop();
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const url = (i: number) => (set.replicas[i] as { url: string }).url;

test('a master SIGKILLed: its replica takes over, and sessions and a running task survive', async () => {
  // Sessions spread over the masters by their hash tag, opened on every replica.
  const sessions: string[] = [];
  for (let i = 0; i < 12; i++) sessions.push(await openSession(url(i % 3)));
  const gate = path.join(dir, 'gate-task');
  const taskId = await createTask(url(0), 'gated_task', { gate });
  assert.equal((await pollTaskOn(url(1), taskId, () => true, EVENT_WAIT_MS)).status, 'working');
  const victim = redis.masterOf(`mcp-toolkit:task:${taskId}`);
  const onVictim = sessions.filter((id) => redis.masterOf(`mcp-toolkit:session:{${id}}`) === victim);
  assert.ok(onVictim.length > 0, 'some sessions live on the master that is killed');
  await redis.synced();

  const { now } = await within(redis.killMaster(victim), 'the cluster to promote the replica');
  assert.equal(redis.masterOf(`mcp-toolkit:task:${taskId}`), now);
  for (const [i, replica] of set.replicas.entries()) {
    let last = '';
    await until(
      async () => {
        const r = await readyz(replica);
        last = JSON.stringify(r.body);
        return r.body.status === 'ready';
      },
      EVENT_WAIT_MS,
      `replica ${i + 1} ready again`,
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}; its last /readyz: ${last}; its log:\n${replica.stderr().slice(-4000)}`,
      );
    });
  }

  // Every session a client was given answers on every replica (a 503 while the cluster
  // settles is retried, a 404 would be a lost session).
  for (const [i, id] of sessions.entries()) {
    for (let r = 0; r < 3; r++) {
      let status = 0;
      await until(
        async () => {
          const ping = await post(
            url(r),
            { jsonrpc: '2.0', id: 1, method: 'ping' },
            { 'mcp-session-id': id, 'mcp-protocol-version': V2025 },
          );
          status = ping.status;
          assert.notEqual(status, 404, `session ${i + 1} lost on replica ${r + 1}`);
          return status === 200;
        },
        EVENT_WAIT_MS,
        `session ${i + 1} to answer on replica ${r + 1}`,
      );
    }
  }

  // The task held across the failover finishes where it ran; another replica reads its result.
  await writeFile(gate, '');
  const held = await pollTaskOn(url(2), taskId, isTerminal, EVENT_WAIT_MS);
  assert.equal(held.status, 'completed', JSON.stringify(held));
  assert.deepEqual((held.result as Message).content, [
    { type: 'text', text: `gated task done on ${set.replicas[0]?.child.pid}` },
  ]);
  // A task created after the failover runs too.
  const fresh = await createTask(url(1), 'slow_compute', { seconds: 1, label: 'after the failover' });
  const done = await pollTaskOn(url(0), fresh, isTerminal, EVENT_WAIT_MS);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.deepEqual((done.result as Message).content, [
    { type: 'text', text: 'Computed after the failover in 1 s' },
  ]);
});
