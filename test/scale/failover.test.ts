/**
 * Streams outlive the replica that held them (docs/deployment.md, "What survives a replica
 * stopping"): three real replicas share one real `redis-server`, with a 3 s task lease
 * (MCP_TASK_LEASE_MS) so that a stopped replica is noticed within 5 s.
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
import { type SseEvent, SseReader } from '../conformance/http-fixture.ts';
import { openSession, post, textOf, V2025 } from '../e2e/batteries/helpers.ts';
import { until } from '../helpers/until.ts';
import { type Cluster, startCluster } from './cluster.ts';

let cluster: Cluster;
let dir: string;
before(async () => {
  cluster = await startCluster({ MCP_TASK_LEASE_MS: '3000' }, 3);
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-failover-'));
});
after(async () => {
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const sessionHeaders = (session: string) => ({ 'mcp-session-id': session, 'mcp-protocol-version': V2025 });
const url = (i: number) => (cluster.replicas[i] as { url: string }).url;

/** An open GET stream and every event read from it, read as they come. */
function listen(res: Response) {
  const reader = new SseReader(res, V2025);
  const events: SseEvent[] = [];
  const ended = (async () => {
    try {
      for (let e = await reader.next(); e !== undefined; e = await reader.next()) events.push(e);
    } catch {
      // The replica died under the stream: the connection broke.
    }
  })();
  return { reader, events, ended };
}

function getStream(u: string, session: string, lastEventId?: string): Promise<Response> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...sessionHeaders(session) };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  return fetch(u, { headers });
}

/** Polls until `check` holds, failing after `timeoutMs` with `what`. */
async function waitFor(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const uriOf = (n: number) => `test://seq/${n}`;
const updated = (events: readonly SseEvent[]) =>
  events.flatMap((e) =>
    e.message?.method === 'notifications/resources/updated'
      ? [(e.message.params as { uri: string }).uri]
      : [],
  );

/** Subscribes the session to `count` URIs and returns a function announcing the next one from replica `from`. */
async function announcer(session: string, count: number, from: number) {
  for (let n = 1; n <= count; n++) {
    const sub = await post(
      url(from),
      { jsonrpc: '2.0', id: n, method: 'resources/subscribe', params: { uri: uriOf(n) } },
      sessionHeaders(session),
    );
    assert.equal(sub.status, 200);
  }
  let next = 0;
  return async () => {
    next++;
    const reply = await post(
      url(from),
      {
        jsonrpc: '2.0',
        id: 1000 + next,
        method: 'tools/call',
        params: { name: 'touch_resource', arguments: { uri: uriOf(next) } },
      },
      sessionHeaders(session),
    );
    assert.equal(reply.status, 200);
    return next;
  };
}

const expected = (count: number) => Array.from({ length: count }, (_, i) => uriOf(i + 1));

/** POSTs a gated_steps call (id 7, with a progress token) and reads its priming event and first progress, then drops it. */
async function startGatedCall(u: string, session: string, gate: string) {
  const dropped = new AbortController();
  const res = await fetch(u, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...sessionHeaders(session),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'gated_steps', arguments: { gate }, _meta: { progressToken: 'p' } },
    }),
    signal: dropped.signal,
  });
  const reader = new SseReader(res, V2025, 'tools/call');
  const priming = await reader.next();
  const progress1 = await reader.next();
  assert.ok(priming?.id, 'the priming event has an id');
  assert.equal(progress1?.message?.method, 'notifications/progress');
  assert.ok(progress1.id);
  dropped.abort();
  await reader.cancel();
  return { priming, progress1 };
}

/** Reads a resumed call stream to its end (bounded), failing if it stays silent. */
async function restOf(res: Response, timeoutMs = 30_000): Promise<SseEvent[]> {
  assert.equal(res.status, 200);
  const reader = new SseReader(res, V2025, 'tools/call');
  const timer = setTimeout(() => void reader.cancel(), timeoutMs);
  try {
    const events = await reader.rest();
    const last = events.at(-1)?.message;
    assert.ok(
      last && ('result' in last || 'error' in last),
      `the stream ended with an answer within ${timeoutMs} ms`,
    );
    return events;
  } finally {
    clearTimeout(timer);
  }
}

const answersOf = (events: readonly SseEvent[]) =>
  events.flatMap((e) => (e.message && ('result' in e.message || 'error' in e.message) ? [e.message] : []));
const progressOf = (events: readonly SseEvent[]) =>
  events.flatMap((e) =>
    e.message?.method === 'notifications/progress'
      ? [(e.message.params as { progress: number }).progress]
      : [],
  );

for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
  describe(`the replica holding a GET stream and a call stops (${signal})`, () => {
    test('the streams resumed on other replicas get every notification, and the call its answer', async () => {
      // SIGKILL takes replica 0, SIGTERM replica 1; replica 2 announces, and holds the resumes.
      const holder = signal === 'SIGKILL' ? 0 : 1;
      const resumeOn = holder === 0 ? 1 : 2;
      const session = await openSession(url(2));
      const announce = await announcer(session, 12, 2);

      const first = listen(await getStream(url(holder), session));
      await waitFor(() => first.events.length > 0, 'the priming event');
      const priming = first.events[0];
      assert.ok(priming?.id, 'the priming event has an id to resume from');
      for (let i = 0; i < 3; i++) await announce();
      await waitFor(() => updated(first.events).length === 3, 'three notifications on the first stream');
      // A call on the same replica, waiting at its gate, its stream dropped after the first progress.
      const gate = path.join(dir, `gate-${signal}`);
      const call = await startGatedCall(url(holder), session, gate);

      cluster.replicas[holder]?.child.kill(signal);
      // SIGTERM drains: the call in flight finishes (its gate opens now) before the replica exits.
      if (signal === 'SIGTERM') await writeFile(gate, '');
      await first.ended;
      await cluster.replicas[holder]?.exited;
      // Nobody holds the stream now: these wait in the session's feed.
      for (let i = 0; i < 3; i++) await announce();

      const lastSeen = first.events.at(-1)?.id;
      assert.ok(lastSeen);
      const resumedRes = await getStream(url(resumeOn), session, lastSeen);
      assert.equal(resumedRes.status, 200);
      const resumed = listen(resumedRes);
      await waitFor(() => updated(resumed.events).length === 3, 'the missed notifications replayed');
      for (let i = 0; i < 3; i++) await announce();
      await waitFor(() => updated(resumed.events).length === 6, 'the new notifications');

      // Dropped again (a network blip) and resumed on the announcing replica: it still goes on.
      await resumed.reader.cancel();
      await resumed.ended;
      for (let i = 0; i < 3; i++) await announce();
      const again = listen(await getStream(url(2), session, resumed.events.at(-1)?.id));
      await waitFor(() => updated(again.events).length === 3, 'the notifications of the second resume');
      await again.reader.cancel();

      const all = [...first.events, ...resumed.events, ...again.events];
      assert.deepEqual([...updated(all)], expected(12), 'every notification once, in order');
      const ids = all.flatMap((e) => (e.id ? [e.id] : []));
      assert.equal(new Set(ids).size, ids.length, 'no event id twice');

      // The call: resumed on another replica, it gets one answer.
      const rest = await restOf(await getStream(url(resumeOn), session, call.progress1.id));
      const answers = answersOf(rest);
      assert.equal(answers.length, 1, 'one answer');
      assert.equal(answers[0]?.id, 7);
      if (signal === 'SIGKILL') {
        const error = answers[0]?.error as { code: number; message: string };
        assert.equal(error.code, -32044);
        assert.match(error.message, /lost.*may be sent again/);
        assert.deepEqual(progressOf(rest), []);
      } else {
        assert.deepEqual(progressOf(rest), [2, 3]);
        assert.match(textOf(answers[0]?.result) ?? '', /^stepped on /);
      }
      // A late reconnect anywhere replays the same end: still one answer.
      const late = await restOf(await getStream(url(2), session, call.priming.id));
      assert.deepEqual(answersOf(late), answers);
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
      { timeoutMs: 20_000, intervalMs: 200, message: 'the resume accepted once Redis is back' },
    );
    const rest = await restOf(accepted);
    assert.deepEqual(progressOf(rest), [2, 3]);
    const answers = answersOf(rest);
    assert.equal(answers.length, 1);
    assert.match(textOf(answers[0]?.result) ?? '', /^stepped on /);
  });
});
