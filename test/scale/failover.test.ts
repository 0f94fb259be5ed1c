/**
 * Streams outlive the replica that held them (docs/deployment.md, "What survives a replica
 * stopping"): three real replicas share one real `redis-server`. A session's GET stream is
 * held on one replica while resource updates are announced from another; that replica is
 * SIGKILLed (or stopped with SIGTERM), notifications go on while nobody holds the stream, and
 * the client resumes with `Last-Event-ID` on a third: every notification arrives, in order,
 * exactly once, and the resumed stream goes on carrying new ones, through further resumes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type SseEvent, SseReader } from '../conformance/http-fixture.ts';
import { openSession, post, V2025 } from '../e2e/batteries/helpers.ts';
import { type Cluster, startCluster } from './cluster.ts';

let cluster: Cluster;
before(async () => {
  cluster = await startCluster({}, 3);
});
after(async () => {
  await cluster?.stop();
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

for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
  describe(`the replica holding a GET stream stops (${signal})`, () => {
    test('the stream resumed on another replica gets every missed and every new notification', async () => {
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

      cluster.replicas[holder]?.child.kill(signal);
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
    });
  });
}
