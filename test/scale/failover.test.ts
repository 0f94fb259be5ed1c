/**
 * Streams outlive the replica that held them (docs/deployment.md, "What survives a replica
 * stopping"): three real replicas share one real `redis-server`, with an 8 s task lease
 * (MCP_TASK_LEASE_MS: a stopped replica is noticed within 5/3 of it, and a live one stalled
 * for seconds on a loaded machine is not taken for dead) and a drain of up to 60 s.
 * The scenario (streams.ts) waits for events only, each within a bound sized for load 20+;
 * topologies.test.ts runs it on a Redis Cluster and through a Sentinel failover.
 *
 * - A session's GET stream is held on one replica while resource updates are announced from
 *   another; that replica is SIGKILLed (or stopped with SIGTERM), notifications go on while
 *   nobody holds the stream, and the client resumes with `Last-Event-ID` on a third: every
 *   notification arrives, in order, exactly once, and the resumed stream goes on carrying new
 *   ones, through further resumes.
 * - A call running on that replica, its stream dropped and resumed elsewhere: after SIGKILL
 *   it gets one JSON-RPC error (-32044, lost, may be retried); after SIGTERM the drain lets
 *   it finish, and the resume gets the rest of its progress and its result once.
 * - A call that finishes while Redis is frozen and nobody is connected: its events are
 *   stored once Redis answers, and the resume gets them.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openSession, textOf } from '../e2e/batteries/helpers.ts';
import { until } from '../helpers/until.ts';
import { type Cluster, startCluster } from './cluster.ts';
import {
  answersOf,
  EVENT_WAIT_MS,
  getStream,
  progressOf,
  REPLICA_ENV,
  restOf,
  startGatedCall,
  streamsOutliveReplicaStop,
  waitFor,
} from './streams.ts';

let cluster: Cluster;
let dir: string;
before(async () => {
  cluster = await startCluster(REPLICA_ENV, 3);
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-failover-'));
});
after(async () => {
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const url = (i: number) => (cluster.replicas[i] as { url: string }).url;

for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
  describe(`the replica holding a GET stream and a call stops (${signal})`, () => {
    test('the streams resumed on other replicas get every notification, and the call its answer', async () => {
      // SIGKILL takes replica 0, SIGTERM replica 1; replica 2 announces, and holds the resumes.
      const holder = signal === 'SIGKILL' ? 0 : 1;
      await streamsOutliveReplicaStop({
        replicas: cluster.replicas,
        signal,
        holder,
        resumeOn: holder === 0 ? 1 : 2,
        announcer: 2,
        dir,
      });
    });
  });
}

describe('a call finishing while Redis is frozen and its client is away', () => {
  test('its events are stored once Redis answers, and the resume gets them once', async () => {
    const session = await openSession(url(2));
    const gate = path.join(dir, 'gate-frozen');
    const call = await startGatedCall(url(2), session, gate);
    const replica = cluster.replicas[2];
    assert.ok(replica);
    cluster.redis.pause();
    try {
      await writeFile(gate, '');
      // The call has finished and its first event failed to be stored (commands time out after 1 s).
      await waitFor(
        () => replica.stderr().includes('an SSE event could not be stored: retrying'),
        'a failed store, retried',
      );
    } finally {
      cluster.redis.resume();
    }
    // Reconnects are refused (503) until Redis answers the session store again.
    const accepted = await until(
      async () => {
        const res = await getStream(url(2), session, call.progress1.id);
        if (res.status === 200) return res;
        assert.equal(res.status, 503);
        await res.body?.cancel();
        return undefined;
      },
      { timeoutMs: EVENT_WAIT_MS, intervalMs: 200, message: 'the resume accepted once Redis is back' },
    );
    const rest = await restOf(accepted);
    assert.deepEqual(progressOf(rest), [2, 3]);
    const answers = answersOf(rest);
    assert.equal(answers.length, 1);
    assert.match(textOf(answers[0]?.result) ?? '', /^stepped on /);
  });
});
