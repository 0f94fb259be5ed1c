/**
 * A bounded fault soak (docs/deployment.md, "What survives which fault"): three replicas of the
 * CLI on one real `redis-server` that keeps its data (an append-only file), behind a plain
 * round-robin balancer. Three official SDK v1 clients, each a session with its resumable GET
 * stream, call a tool that reports progress and leaves one mark per run in Redis; a 2026-wire
 * client runs the same tool as tasks; an announcer sends resource updates every session is
 * subscribed to. Meanwhile, in turn: SIGKILL of the replica holding the most GET streams (and a
 * call held there), SIGTERM of one (a call held there too, and /readyz read during the drain),
 * SIGSTOP of one for 3 s, a graceful Redis restart and a 3 s Redis outage (shorter than the task
 * lease). Each fault waits for events only: the replica's /readyz, Redis's PING, fresh answers
 * after it and every notification caught up.
 *
 * It fails on a notification never received or received twice (a session has one GET stream),
 * a request never answered (or answered wrongly), a run done twice for one request, a -32044
 * outside a SIGKILL, a task failed outside a replica stop. A call answered -32044 (SIGKILL) or a task failed as "replica stopped" is sent again
 * under a new key, as an idempotent tool's client does; refused attempts (502 from the
 * balancer, 503 while Redis is away) are sent again too. The figures go to the test output.
 *
 * SOAK_SECONDS=600 node scripts/test.ts test/scale/soak.test.ts repeats the schedule for ten
 * minutes (the default, once, is what CI runs).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient } from '../../src/redis/client.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';
import { type SpawnedHttpServer, spawnHttpServer } from '../helpers/spawn-server.ts';
import { type ReplicaSet, readyz, SCALE_PLUGINS, startReplicas } from './cluster.ts';
import {
  announce,
  callEffect,
  type Interrupted,
  newTally,
  openSoakSession,
  request2026,
  runTask,
  SOAK_WAIT_MS,
  type SoakSession,
  subscribeAll,
  type Tally,
} from './soak.ts';
import { REPLICA_ENV, within } from './streams.ts';

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? '0');
/** A SIGSTOPped replica and a Redis outage last this long (both well under the 8 s lease). */
const FAULT_MS = 3000;
/** Between one client's operations: about 10 operations a second in all. */
const PACE_MS = 300;
/** Answers (effects run) required after each fault before the next. */
const FRESH_ANSWERS = 6;
const NOTES_PER_PHASE = 9;

let redis: RedisServer;
let set: ReplicaSet;
let probe: Redis;
let env: Record<string, string>;
const live: SpawnedHttpServer[] = [];
const sessions: SoakSession[] = [];
const tally: Tally = newTally();
/** When each replica was stopped. */
/** Each replica stop: from the signal (`at`) to the process's exit (`until`). */
const stops: { readonly signal: string; readonly at: number; until: number }[] = [];
/** The clients go on with their operations while this holds. */
let running = true;

before(async () => {
  redis = await startRedisServer({ persistent: true });
  env = {
    ...REPLICA_ENV,
    // /readyz answers 503 this long after SIGTERM while every request is still served.
    MCP_SHUTDOWN_DELAY_MS: '4000',
    MCP_PLUGINS: `${SCALE_PLUGINS},./test/scale/fixtures/soak-plugin.ts`,
    MCP_SOAK_REDIS_URL: redis.url,
    MCP_STATE_SECRET: randomBytes(32).toString('hex'),
  };
  set = await startReplicas(redis.url, env, 3);
  live.push(...set.replicas);
  probe = createRedisClient(redis.url);
  probe.on('error', () => {});
  await probe.connect();
});
after(async () => {
  running = false;
  tally.over = true;
  await Promise.allSettled(sessions.map((s) => s.close()));
  probe?.disconnect();
  await set?.proxy.close();
  await Promise.allSettled(live.map((r) => r.stop()));
  await redis?.stop();
});

/** SOAK_TRACE=1 prints each step as it happens (the figures come at the end either way). */
const trace = process.env.SOAK_TRACE
  ? (line: string) => console.error(`soak ${new Date().toISOString()} ${line}`)
  : () => {};
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = SOAK_WAIT_MS) {
  const deadline = Date.now() + timeoutMs;
  trace(`waiting for ${what}`);
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await pause(50);
  }
}
const isReady = (r: SpawnedHttpServer) =>
  readyz(r).then(
    (x) => x.status === 200 && x.body.status === 'ready',
    () => false,
  );

/** The replica holding the most sessions' GET streams now (the last accepted GET of each session). */
function streamHolder(): { index: number; streams: number } {
  const last = new Map<string, number>();
  for (const e of set.proxy.log) {
    const session = e.headers['mcp-session-id'];
    if (e.method === 'GET' && e.status === 200 && typeof session === 'string') last.set(session, e.upstream);
  }
  const counts = [0, 0, 0];
  for (const i of last.values()) counts[i] = (counts[i] ?? 0) + 1;
  const index = counts.indexOf(Math.max(...counts));
  return { index, streams: counts[index] ?? 0 };
}

/** Starts a replica in place of `index` (same settings, a new port) and waits until it is ready. */
async function respawn(index: number): Promise<void> {
  const replica = await spawnHttpServer({
    MCP_REDIS_URL: redis.url,
    MCP_SSE_RETRY_MS: '100',
    MCP_LOG_FORMAT: 'json',
    ...env,
  });
  live[index] = replica;
  set.proxy.replace(index, new URL(replica.url).origin);
  await waitUntil(() => isReady(replica), 'the restarted replica to be ready');
}

/** A call steered to replica `index` that holds after its progress, and when it has all three. */
async function heldCall(index: number, op: string, holdMs: number) {
  const progressed = { count: 0, lostAt: 0 };
  const key = `${op}-a0`;
  set.proxy.route = (req) => {
    const args = (req.body as { params?: { arguments?: { key?: string } } } | undefined)?.params?.arguments;
    return req.method === 'POST' && args?.key === key ? index : undefined;
  };
  const done = callEffect(sessions[0] as SoakSession, tally, op, {
    holdMs: (n) => (n === 0 ? holdMs : 0),
    onProgress: (n) => {
      if (n === 0) progressed.count++;
    },
    onLost: (n) => {
      if (n === 0) progressed.lostAt = Date.now();
    },
  });
  await waitUntil(() => progressed.count >= 3, `the held call ${op} to report its progress`);
  set.proxy.route = undefined;
  return { done, progressed, key };
}

interface Measured {
  readonly fault: string;
  recoveryMs: number;
  readonly notes: string[];
}

test('three replicas on one Redis through SIGKILL, SIGTERM, SIGSTOP, a Redis restart and outage: nothing lost, nothing run twice', {
  timeout: 900_000 + SOAK_SECONDS * 2000,
}, async (t) => {
  for (let k = 0; k < 3; k++) sessions.push(await openSoakSession(set.url, tally));
  const announced: string[] = [];
  const warm = 'test://soak/warm';
  for (const s of sessions) await subscribeAll(s, [warm], tally);
  // Each client opens its GET stream once initialised: announce until every one has heard.
  await waitUntil(async () => {
    await announce(set.url, tally, warm);
    await pause(200);
    return sessions.every((s) => (s.received.get(warm) ?? 0) > 0);
  }, 'every GET stream to be open');

  const workers = sessions.map(async (s, k) => {
    for (let i = 0; running; i++) {
      await callEffect(s, tally, `s${k}-${i}`, { holdMs: () => (i % 4 === 3 ? 1000 : 0) });
      await pause(PACE_MS);
    }
  });
  workers.push(
    (async () => {
      for (let i = 0; running; i++) {
        await runTask(set.url, tally, `t${i}`, 1000);
        await pause(PACE_MS);
      }
    })(),
  );

  let uris: string[] = [];
  const announceSome = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const uri = uris.shift();
      assert.ok(uri, 'a subscribed URI left to announce');
      await announce(set.url, tally, uri);
      announced.push(uri);
    }
  };
  const caughtUp = () =>
    waitUntil(
      () => sessions.every((s) => announced.every((u) => (s.received.get(u) ?? 0) > 0)),
      'every session to receive every notification announced',
    );
  const freshAnswers = async () => {
    const target = tally.done.size + FRESH_ANSWERS;
    await waitUntil(() => tally.done.size >= target, `${FRESH_ANSWERS} answers after the fault`);
  };

  const measured: Measured[] = [];
  const phase = async (fault: string, inject: (m: Measured) => Promise<void>) => {
    await announceSome(3);
    await caughtUp();
    const m: Measured = { fault, recoveryMs: 0, notes: [] };
    const t0 = Date.now();
    await inject(m);
    await announceSome(3);
    await freshAnswers();
    await caughtUp();
    m.recoveryMs = Date.now() - t0;
    measured.push(m);
  };

  const started = Date.now();
  for (let round = 0; round === 0 || Date.now() - started < SOAK_SECONDS * 1000; round++) {
    uris = Array.from({ length: 5 * NOTES_PER_PHASE }, (_, n) => `test://soak/r${round}/${n}`);
    for (const s of sessions) await subscribeAll(s, uris, tally);

    await phase(`SIGKILL (round ${round})`, async (m) => {
      const { index, streams } = streamHolder();
      const held = await heldCall(index, `kill${round}`, 60_000);
      const killed = live[index] as SpawnedHttpServer;
      const at = Date.now();
      killed.child.kill('SIGKILL');
      const kill = { signal: 'SIGKILL', at: Date.now(), until: Number.POSITIVE_INFINITY };
      stops.push(kill);
      await within(killed.exited, 'the killed replica to exit');
      kill.until = Date.now();
      await announceSome(3); // while nobody holds the streams that replica held
      await respawn(index);
      await within(held.done, 'the held call to be answered');
      assert.ok(held.progressed.lostAt > 0, 'the call held on the killed replica was answered -32044');
      m.notes.push(
        `replica ${index} held ${streams} GET stream(s); its held call was answered -32044 ` +
          `${((held.progressed.lostAt - at) / 1000).toFixed(1)} s after the kill`,
      );
    });

    await phase(`SIGTERM (round ${round})`, async (m) => {
      const { index, streams } = streamHolder();
      const held = await heldCall(index, `term${round}`, 2000);
      const stopping = live[index] as SpawnedHttpServer;
      stopping.child.kill('SIGTERM');
      const term = { signal: 'SIGTERM', at: Date.now(), until: Number.POSITIVE_INFINITY };
      stops.push(term);
      await waitUntil(() => readyz(stopping).then((r) => r.status === 503), '/readyz 503 in the drain');
      const during = await request2026(stopping.url, 'tools/call', { name: 'whoami', arguments: {} });
      assert.equal(during.status, 200, 'a call is answered while /readyz is 503');
      await within(stopping.exited, 'the stopped replica to exit');
      term.until = Date.now();
      await announceSome(3);
      await respawn(index);
      await within(held.done, 'the held call to be answered');
      assert.ok(tally.done.has(held.key), 'the call held on the draining replica got its result');
      m.notes.push(
        `replica ${index} held ${streams} GET stream(s); /readyz 503 and a call answered in the drain; its held call got its result`,
      );
    });

    await phase(`SIGSTOP ${FAULT_MS / 1000} s (round ${round})`, async (m) => {
      const { index, streams } = streamHolder();
      const frozen = live[index] as SpawnedHttpServer;
      frozen.child.kill('SIGSTOP');
      const during = announceSome(3);
      await pause(FAULT_MS); // the fault itself: how long the replica stays frozen
      frozen.child.kill('SIGCONT');
      await within(during, 'the announcements made while a replica was frozen');
      m.notes.push(`replica ${index} held ${streams} GET stream(s)`);
    });

    // No announcements while Redis is away: messages between replicas are lost then, by design.
    await phase(`Redis graceful restart (round ${round})`, async () => {
      await redis.restart('SIGTERM');
      await waitUntil(async () => (await Promise.all(live.map(isReady))).every(Boolean), 'ready replicas');
    });

    await phase(`Redis outage ${FAULT_MS / 1000} s (round ${round})`, async () => {
      await redis.stop();
      await pause(FAULT_MS); // the fault itself: how long Redis stays away
      await redis.restart();
      await waitUntil(async () => (await Promise.all(live.map(isReady))).every(Boolean), 'ready replicas');
    });
  }
  running = false;
  await within(Promise.all(workers), 'the clients to finish their last operation');

  // Every run of the tool, per key (one key per attempt): more than one is a doubled effect.
  const runs = new Map<string, number>();
  for (const key of await probe.keys('soak:runs:*')) {
    runs.set(key.slice('soak:runs:'.length), await probe.scard(key));
  }
  const doubled = [...runs].filter(([, n]) => n > 1);
  const unrun = [...tally.done].filter((key) => runs.get(key) !== 1);
  let lostNotes = 0;
  let duplicateNotes = 0;
  for (const s of sessions) {
    for (const u of announced) {
      const n = s.received.get(u) ?? 0;
      if (n === 0) lostNotes++;
      else duplicateNotes += n - 1;
      if (n > 1) trace(`duplicate ${u} x${n} on session ${s.sessionId}`);
    }
  }
  // A second GET of a session while its stream is open is refused (409): the SDK v1 client
  // opens one after resuming a call answered -32044, and tries it again up to its maxRetries.
  const refusedGets = set.proxy.log.filter((e) => e.method === 'GET' && e.status === 409).length;
  t.diagnostic(
    `soak: ${((Date.now() - started) / 1000).toFixed(0)} s, ${measured.length} faults; ` +
      `${tally.answered} operations answered (${tally.done.size} tool runs, ${tally.progress} progress notifications), ` +
      `${sessions.length} GET streams x ${announced.length} notifications; ` +
      `refused and sent again: ${tally.refused}; answered -32044 and sent again: ${tally.lost.length}; ` +
      `tasks failed by a replica stop and run again: ${tally.tasksStopped.length}; ` +
      `lost notifications: ${lostNotes}, duplicates: ${duplicateNotes}; second GET streams refused (409): ${refusedGets}; ` +
      `doubled effects: ${doubled.length}; ` +
      `failures: ${tally.failures.length}`,
  );
  for (const m of measured) {
    t.diagnostic(`  ${m.fault}: recovered in ${(m.recoveryMs / 1000).toFixed(1)} s ${m.notes.join('; ')}`);
  }

  assert.deepEqual(tally.failures, [], 'every request answered, rightly');
  assert.equal(lostNotes, 0, 'every notification reached every stream');
  assert.equal(duplicateNotes, 0, 'no notification reached a session twice (one stream per session)');
  assert.deepEqual(doubled, [], 'no request ran twice');
  assert.deepEqual(unrun, [], 'every answered call ran once');
  // Cut by a fault: a replica was stopping (from its signal to its exit) while the attempt
  // waited for its answer. A task sent to a replica in its drain, while it still serves, is
  // failed by that drain as one already running is.
  const cutBy = (signals: readonly string[]) => (a: Interrupted) =>
    !stops.some((s) => signals.includes(s.signal) && a.sentAt <= s.until && s.at <= a.answeredAt);
  assert.deepEqual(tally.lost.filter(cutBy(['SIGKILL'])), [], '-32044 only for calls cut by a SIGKILL');
  assert.deepEqual(
    tally.tasksStopped.filter(cutBy(['SIGKILL', 'SIGTERM'])),
    [],
    'tasks failed as stopped only when their replica stopped',
  );
});
