/**
 * Reading and resuming streams across replicas, for the scale-out tests (failover.test.ts,
 * topologies.test.ts): a GET stream read as it comes, resource updates announced one by one
 * to a session subscribed to each, a gated call dropped after its first progress, and a
 * resumed call stream read to its answer.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type SseEvent, SseReader } from '../conformance/http-fixture.ts';
import { openSession, post, textOf, V2025 } from '../e2e/batteries/helpers.ts';
import type { SpawnedHttpServer } from '../helpers/spawn-server.ts';

export const sessionHeaders = (session: string) => ({
  'mcp-session-id': session,
  'mcp-protocol-version': V2025,
});

/** An open GET stream and every event read from it, read as they come. */
export function listen(res: Response) {
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

export function getStream(u: string, session: string, lastEventId?: string): Promise<Response> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...sessionHeaders(session) };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  return fetch(u, { headers });
}

/**
 * The bound on waiting for one event of a stream (a notification, an answer, a replica's
 * exit): generous, for a machine at load 20 and more, where a replica can stall for seconds.
 * Nothing waits for it unless the event never comes.
 */
export const EVENT_WAIT_MS = 90_000;

/**
 * The replicas' settings for these tests: a task lease of 8 s (a SIGKILLed replica's calls are
 * answered as lost within 5/3 of it, and a live replica stalled for seconds on a loaded machine
 * keeps its lease), and a drain long enough for a call to finish under load after SIGTERM.
 */
export const REPLICA_ENV = { MCP_TASK_LEASE_MS: '8000', MCP_SHUTDOWN_TIMEOUT_MS: '60000' };

/** Polls until `check` holds, failing after `timeoutMs` with `what`. */
export async function waitFor(check: () => boolean, what: string, timeoutMs = EVENT_WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const uriOf = (n: number) => `test://seq/${n}`;
export const updated = (events: readonly SseEvent[]) =>
  events.flatMap((e) =>
    e.message?.method === 'notifications/resources/updated'
      ? [(e.message.params as { uri: string }).uri]
      : [],
  );

/** Subscribes the session to `count` URIs through `u` and returns a function announcing the next one there. */
export async function announcerOn(u: string, session: string, count: number) {
  for (let n = 1; n <= count; n++) {
    const sub = await post(
      u,
      { jsonrpc: '2.0', id: n, method: 'resources/subscribe', params: { uri: uriOf(n) } },
      sessionHeaders(session),
    );
    assert.equal(sub.status, 200);
  }
  let next = 0;
  return async () => {
    next++;
    const reply = await post(
      u,
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

export const expected = (count: number) => Array.from({ length: count }, (_, i) => uriOf(i + 1));

/** POSTs a gated_steps call (id 7 unless given, with a progress token) on the 2025 wire; its response, unread. */
export function postGatedCall(
  u: string,
  session: string,
  gate: string,
  signal?: AbortSignal,
  id = 7,
): Promise<Response> {
  return fetch(u, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...sessionHeaders(session),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'gated_steps', arguments: { gate }, _meta: { progressToken: 'p' } },
    }),
    ...(signal ? { signal } : {}),
  });
}

/** POSTs a gated_steps call (id 7, with a progress token) and reads its priming event and first progress, then drops it. */
export async function startGatedCall(u: string, session: string, gate: string) {
  const dropped = new AbortController();
  const res = await postGatedCall(u, session, gate, dropped.signal);
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
export async function restOf(res: Response, timeoutMs = EVENT_WAIT_MS): Promise<SseEvent[]> {
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

export const answersOf = (events: readonly SseEvent[]) =>
  events.flatMap((e) => (e.message && ('result' in e.message || 'error' in e.message) ? [e.message] : []));
export const progressOf = (events: readonly SseEvent[]) =>
  events.flatMap((e) =>
    e.message?.method === 'notifications/progress'
      ? [(e.message.params as { progress: number }).progress]
      : [],
  );

/** Resolves when `promise` does, failing after `timeoutMs` with `what`. */
export async function within<T>(promise: Promise<T>, what: string, timeoutMs = EVENT_WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The replica holding a session's GET stream and a call is stopped with `signal`; notifications
 * go on from `announcer` while nobody holds the stream; the client resumes on `resumeOn`, then
 * (after a blip) on `announcer`. Every notification arrives, in order, once; the call resumed
 * elsewhere gets one answer: -32044 after SIGKILL, the rest of its progress and its result
 * after SIGTERM (the drain lets it finish; the replicas run with a drain long enough for a
 * loaded machine). Waits only for events, each within EVENT_WAIT_MS.
 */
export async function streamsOutliveReplicaStop(options: {
  readonly replicas: readonly SpawnedHttpServer[];
  readonly signal: 'SIGKILL' | 'SIGTERM';
  /** Indexes into `replicas`: the one stopped, the one resumed on, the one announcing. */
  readonly holder: number;
  readonly resumeOn: number;
  readonly announcer: number;
  /** A folder for the call's gate file. */
  readonly dir: string;
}): Promise<void> {
  const { replicas, signal, holder, resumeOn, dir } = options;
  const url = (i: number) => (replicas[i] as SpawnedHttpServer).url;
  const stopped = replicas[holder] as SpawnedHttpServer;
  const session = await openSession(url(options.announcer));
  const announce = await announcerOn(url(options.announcer), session, 12);

  const first = listen(await getStream(url(holder), session));
  await waitFor(() => first.events.length > 0, 'the priming event');
  const priming = first.events[0];
  assert.ok(priming?.id, 'the priming event has an id to resume from');
  for (let i = 0; i < 3; i++) await announce();
  await waitFor(() => updated(first.events).length === 3, 'three notifications on the first stream');
  // A call on the same replica, waiting at its gate, its stream dropped after the first progress.
  const gate = path.join(dir, `gate-${signal}-${holder}`);
  const call = await startGatedCall(url(holder), session, gate);

  stopped.child.kill(signal);
  // SIGTERM drains: the call in flight finishes (its gate opens now) before the replica exits.
  if (signal === 'SIGTERM') await writeFile(gate, '');
  await within(first.ended, 'the first stream to end with its replica');
  await within(stopped.exited, `the replica to exit after ${signal}`);
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
  await within(resumed.ended, 'the resumed stream to end once dropped');
  for (let i = 0; i < 3; i++) await announce();
  const again = listen(await getStream(url(options.announcer), session, resumed.events.at(-1)?.id));
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
    assert.ok(answers[0]?.result, `a result, not ${JSON.stringify(answers[0])}`);
    assert.match(textOf(answers[0]?.result) ?? '', /^stepped on /);
  }
  // A late reconnect anywhere replays the same end: still one answer.
  const late = await restOf(await getStream(url(options.announcer), session, call.priming.id));
  assert.deepEqual(answersOf(late), answers);
}
