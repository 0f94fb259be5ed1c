/**
 * One standalone GET stream per session across replicas (MCP 2025-11-25 "Multiple
 * Connections": a message goes out on one stream only; docs/deployment.md, "One stream per
 * session"): three real replicas on one real `redis-server`.
 *
 * - A fresh GET on replica B while the session's stream is open on A is 409 (-32043), and A
 *   gets each notification once; GETs racing on two replicas at one instant: one wins.
 * - A resume with another session's event id takes nothing from that session.
 * - The replica holding the stream is SIGKILLed: the resume on another replica gets every
 *   missed and every new notification exactly once; a session whose stream was never resumed
 *   accepts a fresh GET once the dead holder's lease lapsed; a holder that closes lets go at once.
 * - Many takeovers in a row, alternating replicas: each old connection ends, no notification twice.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../src/base/errors.ts';
import { openSession } from '../e2e/batteries/helpers.ts';
import { until } from '../helpers/until.ts';
import { type Cluster, startCluster } from './cluster.ts';
import {
  announcerOn,
  EVENT_WAIT_MS,
  expected,
  getStream,
  listen,
  REPLICA_ENV,
  updated,
  waitFor,
  within,
} from './streams.ts';

let cluster: Cluster;
before(async () => {
  cluster = await startCluster(REPLICA_ENV, 3);
});
after(async () => {
  await cluster?.stop();
});

const url = (i: number) => (cluster.replicas[i] as { url: string }).url;

/** A refused GET: 409 with -32043 saying the session's standalone stream is open. */
async function assertRefused(res: Response): Promise<void> {
  assert.equal(res.status, 409);
  const body = (await res.json()) as { error: { code: number; message: string } };
  assert.equal(body.error.code, ErrorCode.TooManyStreams);
  assert.match(body.error.message, /standalone GET stream is already open/);
}

describe('one standalone stream per session across replicas', () => {
  test('a fresh GET on another replica is 409, and the open stream gets each notification once', async () => {
    const session = await openSession(url(2));
    const announce = await announcerOn(url(2), session, 4);
    const a = listen(await getStream(url(0), session));
    await waitFor(() => a.events.length > 0, 'the priming event');
    await assertRefused(await getStream(url(1), session));
    await assertRefused(await getStream(url(0), session));
    for (let i = 0; i < 4; i++) await announce();
    await waitFor(() => updated(a.events).length === 4, 'four notifications');
    assert.deepEqual(updated(a.events), expected(4));
    // GETs of another session racing on two replicas at one instant: one wins.
    const other = await openSession(url(2));
    const raced = await Promise.all([0, 1, 0, 1].map((i) => getStream(url(i), other)));
    assert.deepEqual(raced.map((r) => r.status).sort(), [200, 409, 409, 409]);
    for (const r of raced) await r.body?.cancel();
    await a.reader.cancel();
  });

  test('a resume with another session’s event id takes nothing from that session', async () => {
    const victim = await openSession(url(2));
    const announce = await announcerOn(url(2), victim, 2);
    const held = listen(await getStream(url(0), victim));
    await waitFor(() => held.events.length > 0, 'the priming event');
    const victimId = held.events[0]?.id;
    assert.ok(victimId);
    const attacker = await openSession(url(2));
    // The attacker's own stream opens (a fresh one: the id is not its session's)...
    const own = listen(await getStream(url(1), attacker, victimId));
    await waitFor(() => own.events.length > 0, 'the attacker’s own priming event');
    // ...and the victim's stream goes on, alone.
    for (let i = 0; i < 2; i++) await announce();
    await waitFor(() => updated(held.events).length === 2, 'the victim’s notifications');
    assert.deepEqual(updated(own.events), []);
    await assertRefused(await getStream(url(1), victim));
    await held.reader.cancel();
    await own.reader.cancel();
  });

  test('the holder is SIGKILLed: the resume elsewhere gets every notification once; a fresh GET waits for its lease', async () => {
    const session = await openSession(url(2));
    const announce = await announcerOn(url(2), session, 9);
    const first = listen(await getStream(url(0), session));
    await waitFor(() => first.events.length > 0, 'the priming event');
    // A second session held on the same replica, never resumed: its lease must lapse.
    const orphan = await openSession(url(2));
    const orphanStream = listen(await getStream(url(0), orphan));
    await waitFor(() => orphanStream.events.length > 0, 'the orphan’s priming event');
    for (let i = 0; i < 3; i++) await announce();
    await waitFor(() => updated(first.events).length === 3, 'three notifications');

    const killed = cluster.replicas[0];
    assert.ok(killed);
    killed.child.kill('SIGKILL');
    await within(first.ended, 'the stream to end with its replica');
    await within(killed.exited, 'the replica to exit');
    for (let i = 0; i < 3; i++) await announce();

    const lastSeen = first.events.at(-1)?.id;
    const resumed = listen(await getStream(url(1), session, lastSeen));
    await waitFor(() => updated(resumed.events).length === 3, 'the missed notifications');
    for (let i = 0; i < 3; i++) await announce();
    await waitFor(() => updated(resumed.events).length === 6, 'the new notifications');
    // Taken over: a fresh GET is refused on every live replica.
    await assertRefused(await getStream(url(2), session));
    const all = [...first.events, ...resumed.events];
    assert.deepEqual(updated(all), expected(9), 'every notification once, in order');

    // The holder closes: a fresh GET is accepted at once.
    await resumed.reader.cancel();
    const fresh = await until(
      async () => {
        const res = await getStream(url(2), session);
        if (res.status === 200) return res;
        await assertRefused(res);
        return undefined;
      },
      { timeoutMs: EVENT_WAIT_MS, intervalMs: 100, message: 'a fresh GET after the holder closed' },
    );
    await fresh.body?.cancel();

    // The orphan's holder died with its replica: a fresh GET is accepted once its lease lapsed.
    const accepted = await until(
      async () => {
        const res = await getStream(url(1), orphan);
        if (res.status === 200) return res;
        await assertRefused(res);
        return undefined;
      },
      { timeoutMs: EVENT_WAIT_MS, intervalMs: 250, message: 'a fresh GET after the dead holder’s lease' },
    );
    await accepted.body?.cancel();
  });

  test('many takeovers in a row, alternating replicas: each old connection ends, nothing twice', async () => {
    const session = await openSession(url(2));
    const announce = await announcerOn(url(2), session, 12);
    let current = listen(await getStream(url(1), session));
    await waitFor(() => current.events.length > 0, 'the priming event');
    const streams = [current];
    for (let i = 0; i < 12; i++) {
      await announce();
      await waitFor(
        () => updated(streams.flatMap((s) => s.events)).length === i + 1,
        `notification ${i + 1}`,
      );
      const next = listen(await getStream(url(i % 2 === 0 ? 2 : 1), session, current.events.at(-1)?.id));
      await within(current.ended, `takeover ${i + 1} to end the old connection`);
      current = next;
      streams.push(current);
    }
    await current.reader.cancel();
    assert.deepEqual(updated(streams.flatMap((s) => s.events)), expected(12));
  });
});
