/**
 * The scale-out failover tests on Redis as a distributed engine (docs/deployment.md, "Redis
 * Sentinel or Cluster"): three real replicas of the CLI share
 *
 * - a Redis Cluster of three masters (`MCP_REDIS_URL=redis+cluster://...`): the scenario of
 *   failover.test.ts, after SIGKILL and after SIGTERM of the replica holding a GET stream and a
 *   call, passes with the keys spread over the masters and pub/sub sharded;
 * - a Sentinel set (`redis+sentinel://.../<master name>`) whose master is SIGKILLed while
 *   sessions are being opened: every session a client was given still answers, the GET stream
 *   resumed gets every notification, the call waiting at its gate finishes and its resume
 *   gets the rest of it, a 2026-wire task held at its gate across the kill completes and
 *   another replica reads its result, and a task created after the failover runs too; then
 *   the same replica-stop scenario passes on the promoted master.
 *
 * Real redis-server processes on loopback (test/helpers/redis-topologies.ts); every wait is
 * for an event, bounded for a machine at load 20 and more.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Message } from '../conformance/http-fixture.ts';
import { openSession, post, textOf, V2025 } from '../e2e/batteries/helpers.ts';
import {
  type RedisCluster,
  type RedisSentinelSet,
  startRedisCluster,
  startRedisSentinelSet,
} from '../helpers/redis-topologies.ts';
import { createTask, isTerminal, pollTaskOn } from '../tasks/http-2026.ts';
import { type ReplicaSet, readyz, startReplicas, until } from './cluster.ts';
import {
  announcerOn,
  answersOf,
  EVENT_WAIT_MS,
  expected,
  getStream,
  listen,
  progressOf,
  REPLICA_ENV,
  restOf,
  sessionHeaders,
  startGatedCall,
  streamsOutliveReplicaStop,
  updated,
  waitFor,
  within,
} from './streams.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-topologies-'));
});
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Keys held by the node on `port`. */
const keysOn = (port: number) =>
  Number(
    spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'DBSIZE'], {
      encoding: 'utf8',
      timeout: 10_000,
    }).stdout.trim(),
  );

describe('on a Redis Cluster of three masters', () => {
  let redis: RedisCluster;
  let set: ReplicaSet;
  before(async () => {
    redis = await startRedisCluster();
    set = await startReplicas(redis.url, REPLICA_ENV, 3);
  });
  after(async () => {
    await set?.stop();
    await redis?.stop();
  });

  for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
    test(`the replica holding a GET stream and a call stops (${signal}): streams resumed, the call answered`, async () => {
      const holder = signal === 'SIGKILL' ? 0 : 1;
      await streamsOutliveReplicaStop({
        replicas: set.replicas,
        signal,
        holder,
        resumeOn: holder === 0 ? 1 : 2,
        announcer: 2,
        dir,
      });
      // The state really is spread over the cluster, not on one node.
      const holding = redis.ports.filter((port) => keysOn(port) > 0);
      assert.ok(holding.length >= 2, `keys on ${holding.length} of 3 masters`);
    });
  }
});

describe('through a Sentinel failover', () => {
  let sentinels: RedisSentinelSet;
  let set: ReplicaSet;
  before(async () => {
    sentinels = await startRedisSentinelSet();
    set = await startReplicas(sentinels.url, REPLICA_ENV, 3);
  });
  after(async () => {
    await set?.stop();
    await sentinels?.stop();
  });
  const url = (i: number) => (set.replicas[i] as { url: string }).url;

  test('the master SIGKILLed under load: sessions, the resumed stream and the call go on', async () => {
    const session = await openSession(url(2));
    const announce = await announcerOn(url(2), session, 6);
    const first = listen(await getStream(url(0), session));
    await waitFor(() => first.events.length > 0, 'the priming event');
    for (let i = 0; i < 3; i++) await announce();
    await waitFor(() => updated(first.events).length === 3, 'three notifications on the first stream');
    const gate = path.join(dir, 'gate-sentinel');
    const call = await startGatedCall(url(1), session, gate);
    // A 2026-wire task held at its gate on replica 0 (its handler runs there), across the failover.
    const taskGate = path.join(dir, 'gate-sentinel-task');
    const heldTask = await createTask(url(0), 'gated_task', { gate: taskGate });
    assert.equal((await pollTaskOn(url(1), heldTask, () => true, EVENT_WAIT_MS)).status, 'working');
    // What was written so far has reached the replica; what the load below writes may not have.
    await sentinels.synced();

    // Load: clients opening sessions through the balancer, across the failover. A session
    // whose initialize was answered 200 was given to a client and must not be lost.
    const given: string[] = [];
    let refused = 0;
    let loading = true;
    const load = (async () => {
      while (loading) {
        const init = await post(set.url, {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: V2025, capabilities: {}, clientInfo: { name: 'load', version: '1' } },
        }).catch(() => undefined);
        const id = init?.status === 200 ? init.headers.get('mcp-session-id') : null;
        if (id) given.push(id);
        else refused++;
        // A refusal during the failover is a 503 the client may retry after a moment.
        if (!id) await new Promise((r) => setTimeout(r, 50));
      }
    })();
    try {
      await waitFor(() => given.length >= 3, 'sessions opened before the failover');
      const { was, now } = await within(sentinels.killMaster(), 'the sentinels to promote the replica');
      assert.notEqual(was, now);
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
          const log = replica.stderr().split('\n').slice(-30).join('\n');
          throw new Error(`${err.message}; its last /readyz: ${last}; its log:\n${log}`);
        });
      }
      const before = given.length;
      await waitFor(() => given.length >= before + 3, 'sessions opened after the failover');
    } finally {
      // A failure above must not leave the load running (the test process would never end).
      loading = false;
    }
    await within(load, 'the load to stop');

    // Every session a client was given is still there, on every replica.
    for (const [i, id] of given.entries()) {
      const ping = await post(
        url(i % 3),
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { 'mcp-session-id': id, 'mcp-protocol-version': V2025 },
      );
      assert.equal(ping.status, 200, `session ${i + 1} of ${given.length} (${refused} refused) answers`);
    }

    // The client's stream dropped during the failover; it resumes on another replica.
    await first.reader.cancel();
    await within(first.ended, 'the first stream to end once dropped');
    for (let i = 0; i < 3; i++) await announce();
    const resumed = listen(await getStream(url(1), session, first.events.at(-1)?.id));
    await waitFor(() => updated(resumed.events).length === 3, 'the notifications after the failover');
    await resumed.reader.cancel();
    const all = [...first.events, ...resumed.events];
    assert.deepEqual(updated(all), expected(6), 'every notification once, in order');

    // The call waiting at its gate finishes on the promoted master; its resume gets the rest.
    await writeFile(gate, '');
    const rest = await restOf(await getStream(url(2), session, call.progress1.id));
    assert.deepEqual(progressOf(rest), [2, 3]);
    const answers = answersOf(rest);
    assert.equal(answers.length, 1, 'one answer');
    assert.match(textOf(answers[0]?.result) ?? '', /^stepped on /);
    // The session store and feed answer there too: the session is the same one.
    const ping = await post(url(0), { jsonrpc: '2.0', id: 2, method: 'ping' }, sessionHeaders(session));
    assert.equal(ping.status, 200);

    // The task held across the failover finishes where it ran; another replica reads its result.
    await writeFile(taskGate, '');
    const held = await pollTaskOn(url(2), heldTask, isTerminal, EVENT_WAIT_MS);
    assert.equal(held.status, 'completed', JSON.stringify(held));
    assert.deepEqual((held.result as Message).content, [
      { type: 'text', text: `gated task done on ${set.replicas[0]?.child.pid}` },
    ]);
    // A task created after the failover runs too, and is read on another replica.
    const fresh = await createTask(url(1), 'slow_compute', { seconds: 1, label: 'after the failover' });
    const freshDone = await pollTaskOn(url(0), fresh, isTerminal, EVENT_WAIT_MS);
    assert.equal(freshDone.status, 'completed', JSON.stringify(freshDone));
    assert.deepEqual((freshDone.result as Message).content, [
      { type: 'text', text: 'Computed after the failover in 1 s' },
    ]);
  });

  test('after the failover, the replica holding a GET stream and a call stops (SIGKILL): streams resumed, the call answered', async () => {
    await streamsOutliveReplicaStop({
      replicas: set.replicas,
      signal: 'SIGKILL',
      holder: 0,
      resumeOn: 1,
      announcer: 2,
      dir,
    });
  });
});
