/**
 * The standalone GET stream of a 2025-wire session (MCP 2025-11-25 "Listening for Messages
 * from the Server"), over a real socket: it stays open and carries the session's
 * notifications, here `notifications/tools/list_changed` when the registry changes.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../src/base/errors.ts';
import { defineTool } from '../../src/registry/define.ts';
import { until } from '../helpers/until.ts';
import { firstEvent, openGetStreamAt } from './get-stream-client.ts';
import {
  buildTestApp,
  openSession,
  parseSse,
  post,
  sseMessages,
  type TestApp,
  V2025,
} from './http-helpers.ts';

/**
 * Watches the server side of the next request of `session` to reach `app`: `closed()` turns
 * true once the server has seen its socket close (the client went away).
 */
function watchServerSide(app: TestApp, session: string): { closed(): boolean } {
  let closed = false;
  const onRequest = (req: IncomingMessage) => {
    if (req.headers['mcp-session-id'] !== session) return;
    app.app.server.off('request', onRequest);
    req.socket.once('close', () => {
      closed = true;
    });
  };
  app.app.server.on('request', onRequest);
  return { closed: () => closed };
}

let t: TestApp;
let url: string;
const controllers: AbortController[] = [];
before(async () => {
  t = await buildTestApp();
  url = await t.listen();
});
after(async () => {
  for (const c of controllers) c.abort();
  await t.close();
});

/** A GET stream of `session` on the app under test; aborted after the file's tests. */
const openGetStream = (session: string, lastEventId?: string) =>
  openGetStreamAt(url, session, lastEventId, controllers);

/** The list_changed notifications in an SSE text. */
const listChanges = (text: string) =>
  sseMessages(parseSse(text), V2025).filter((m) => m.method === 'notifications/tools/list_changed').length;

/** Adds a tool, so the server sends each session stream one `notifications/tools/list_changed`. */
let added = 0;
const changeTools = () =>
  t.server.registry.add(
    defineTool({ name: `added_${++added}`, description: 'Added at run time' }, async () => 'x'),
  );

describe('the standalone GET stream', () => {
  test('opens with 200 text/event-stream and the session id, and carries list_changed', {
    timeout: 15_000,
  }, async () => {
    const session = await openSession(t.app);
    const stream = await openGetStream(session);
    assert.equal(stream.response.status, 200);
    assert.match(stream.response.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(stream.response.headers.get('mcp-session-id'), session);
    const first = await firstEvent(stream);
    assert.equal(first.data, '', 'the stream opens with an empty (priming) event');
    assert.equal(first.retry, t.settings.MCP_SSE_RETRY_MS);
    t.server.registry.add(defineTool({ name: 'late', description: 'Added at run time' }, async () => 'late'));
    const text = await stream.readUntil((x) => x.includes('list_changed') && x.endsWith('\n\n'));
    const messages = sseMessages(parseSse(text), V2025);
    assert.deepEqual(
      messages.map((m) => m.method),
      ['notifications/tools/list_changed'],
    );
  });

  test('its priming event carries an event id (2025-11-25: id + empty data + retry)', {
    timeout: 15_000,
  }, async () => {
    const session = await openSession(t.app);
    const first = await firstEvent(await openGetStream(session));
    assert.equal(first.data, '');
    assert.ok(first.id, `priming event without an id: ${JSON.stringify(first)}`);
  });

  test('a client that reconnects with Last-Event-ID gets the notifications it missed, once', {
    timeout: 15_000,
  }, async () => {
    const session = await openSession(t.app);
    const serverSide = watchServerSide(t, session);
    const controller = new AbortController();
    const response = await fetch(url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': V2025 },
      signal: controller.signal,
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('\n\n')) text += (await reader.read()).value ?? '';
    const primingId = parseSse(text)[0]!.id!;
    controller.abort();
    // Wait until the server has seen the disconnect, then change the list while no one listens.
    await until(serverSide.closed, {
      message: 'the server never saw the first stream disconnect',
    });
    t.server.registry.add(defineTool({ name: 'missed', description: 'Added while away' }, async () => 'x'));
    const again = await fetch(url, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': V2025,
        'last-event-id': primingId,
      },
      signal: (() => {
        const c = new AbortController();
        controllers.push(c);
        return c.signal;
      })(),
    });
    assert.equal(again.status, 200);
    const r2 = again.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text2 = '';
    // The missed notification, then the new stream's priming event.
    while (parseSse(text2).length < 2) text2 += (await r2.read()).value ?? '';
    const events = parseSse(text2);
    assert.deepEqual(
      sseMessages(events.slice(0, 1), V2025).map((m) => m.method),
      ['notifications/tools/list_changed'],
    );
    assert.equal(events[1]!.data, '');
    assert.ok(events[1]!.id && events[1]!.id !== primingId);
  });
});

describe("another session's event id", () => {
  test('resumes nothing of that session: the GET opens a stream of its own, with none of its events', {
    timeout: 15_000,
  }, async () => {
    const owner = await openSession(t.app);
    const other = await openSession(t.app);
    // The owner's call answered on a resumable SSE stream, finished: its events are stored.
    const res = await post(
      t.app,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'progress', arguments: {}, _meta: { progressToken: 'p' } },
      },
      { session: owner, version: V2025 },
    );
    const ownerEvents = parseSse(res.body);
    const [prime] = ownerEvents;
    assert.ok(prime?.id, 'the owner stream is resumable');
    // The owner itself gets the rest of its stream from that id.
    const own = await openGetStream(owner, prime.id);
    assert.equal(own.response.status, 200);
    const replayed = sseMessages(parseSse(await own.readToEnd()), V2025);
    assert.equal(replayed.at(-1)?.id, 7, "the owner's resume replays its answer");
    // Another session with the same id: its own standalone stream, nothing of the owner's.
    const stream = await openGetStream(other, prime.id);
    assert.equal(stream.response.status, 200);
    const first = await firstEvent(stream);
    assert.ok(!ownerEvents.some((e) => e.id === first.id), `event ${first.id} is not the owner's`);
    assert.equal(first.data, '', "a priming event of the other session's own stream");
    stream.close();
  });
});

describe('one standalone stream per session (2025-11-25 "Multiple Connections")', () => {
  test('a second GET while the first is open is 409 -32043, and the first gets each notification once', {
    timeout: 15_000,
  }, async () => {
    const session = await openSession(t.app);
    const first = await openGetStream(session);
    assert.equal(first.response.status, 200);
    await firstEvent(first);
    const second = await openGetStream(session);
    assert.equal(second.response.status, 409);
    const body = (await second.response.json()) as { id: unknown; error: { code: number; message: string } };
    assert.equal(body.id, null);
    assert.equal(body.error.code, ErrorCode.TooManyStreams);
    assert.match(body.error.message, /standalone GET stream is already open for this session/);
    // Two changes, each sent once: the list_changed events come one for one.
    changeTools();
    await first.readUntil((x) => listChanges(x) === 1 && x.endsWith('\n\n'));
    changeTools();
    await first.readUntil((x) => listChanges(x) === 2 && x.endsWith('\n\n'));
    // A keep-alive or two may come; a third list_changed may not. Another session's stream is
    // opened and fed after, so anything the first had pending has been written by then.
    const probe = await openGetStream(await openSession(t.app));
    changeTools();
    await probe.readUntil((x) => listChanges(x) === 1 && x.endsWith('\n\n'));
    await first.readUntil((x) => listChanges(x) === 3 && x.endsWith('\n\n'));
    assert.equal(listChanges(first.text()), 3);
    first.close();
    probe.close();
  });

  test('a stream whose connection closed frees the session at once: a fresh GET is accepted', {
    timeout: 15_000,
  }, async () => {
    const session = await openSession(t.app);
    const serverSide = watchServerSide(t, session);
    const first = await openGetStream(session);
    await firstEvent(first);
    first.close();
    await until(() => serverSide.closed(), { message: 'the server never saw the client go away' });
    const fresh = await openGetStream(session);
    assert.equal(fresh.response.status, 200);
    assert.equal((await firstEvent(fresh)).data, '', 'a priming event');
    changeTools();
    await fresh.readUntil((x) => listChanges(x) === 1 && x.endsWith('\n\n'));
    fresh.close();
  });

  test('a resume takes the stream over: the old connection ends, the new one gets what it missed once', {
    timeout: 15_000,
  }, async () => {
    const session = await openSession(t.app);
    const old = await openGetStream(session);
    const priming = await firstEvent(old);
    changeTools();
    await old.readUntil((x) => listChanges(x) === 1 && x.endsWith('\n\n'));
    // The client resumes from the priming event (it never saw the change, say) while the
    // server still holds the old connection (half-open).
    const resumed = await openGetStream(session, priming.id);
    assert.equal(resumed.response.status, 200);
    const oldText = await old.readToEnd();
    assert.equal(listChanges(oldText), 1, 'the old connection ends after what it had');
    await resumed.readUntil((x) => listChanges(x) === 1 && x.endsWith('\n\n'));
    changeTools();
    await resumed.readUntil((x) => listChanges(x) === 2 && x.endsWith('\n\n'));
    // Many takeovers in a row: each ends the one before, and the last one carries on alone.
    let holder = resumed;
    for (let i = 0; i < 10; i++) {
      const last = parseSse(holder.text()).at(-1)?.id;
      assert.ok(last);
      const next = await openGetStream(session, last);
      assert.equal(next.response.status, 200);
      // Nothing missed: the new connection opens with a priming event, the old one ends.
      await next.readUntil((x) => parseSse(x).some((e) => e.data === '' && e.id));
      await holder.readToEnd();
      holder = next;
    }
    changeTools();
    await holder.readUntil((x) => listChanges(x) === 1 && x.endsWith('\n\n'));
    // A fresh GET is still refused: the stream is open, on its newest connection.
    const fresh = await openGetStream(session);
    assert.equal(fresh.response.status, 409);
    await fresh.response.body?.cancel();
    holder.close();
  });

  test('a fresh GET beside a dropped connection, then its resume: nothing lost, nothing twice, no war', {
    timeout: 15_000,
  }, async () => {
    const session = await openSession(t.app);
    const serverSide = watchServerSide(t, session);
    const first = await openGetStream(session);
    await firstEvent(first);
    changeTools(); // A
    await first.readUntil((x) => listChanges(x) === 1 && x.endsWith('\n\n'));
    const firstLast = parseSse(first.text()).at(-1)?.id;
    assert.ok(firstLast);
    first.close();
    await until(() => serverSide.closed(), { message: 'the server never saw the client go away' });
    changeTools(); // B: nobody connected, stored
    // The client opens a fresh GET (the session's stream has no connection: accepted)...
    const second = await openGetStream(session);
    assert.equal(second.response.status, 200);
    await firstEvent(second);
    changeTools(); // C
    await second.readUntil((x) => listChanges(x) === 1 && x.endsWith('\n\n'));
    // ...then resumes the connection it had: it takes over, gets B (nobody delivered it) and
    // not C (the fresh connection did), and the fresh connection ends.
    const resumed = await openGetStream(session, firstLast);
    assert.equal(resumed.response.status, 200);
    await resumed.readUntil((x) => listChanges(x) === 1 && x.endsWith('\n\n'));
    assert.equal(listChanges(await second.readToEnd()), 1);
    changeTools(); // D
    await resumed.readUntil((x) => listChanges(x) === 2 && x.endsWith('\n\n'));
    // The fresh connection's own resume comes from a connection that was displaced: refused,
    // so the two never take the stream from each other in turn.
    const secondLast = parseSse(second.text()).at(-1)?.id;
    assert.ok(secondLast);
    const stale = await openGetStream(session, secondLast);
    assert.equal(stale.response.status, 409);
    await stale.response.body?.cancel();
    changeTools(); // E
    await resumed.readUntil((x) => listChanges(x) === 3 && x.endsWith('\n\n'));
    assert.equal(listChanges(first.text()) + listChanges(second.text()) + listChanges(resumed.text()), 5);
    resumed.close();
  });

  test('two GETs at the same instant: exactly one wins', { timeout: 15_000 }, async () => {
    const session = await openSession(t.app);
    const streams = await Promise.all([0, 1, 2, 3].map(() => openGetStream(session)));
    const statuses = streams.map((x) => x.response.status).sort();
    assert.deepEqual(statuses, [200, 409, 409, 409]);
    for (const x of streams) {
      if (x.response.status !== 200) await x.response.body?.cancel();
      x.close();
    }
  });
});

describe('GET streams per session (MCP_MAX_STREAMS_PER_SESSION)', () => {
  let capped: TestApp;
  let cappedUrl: string;
  before(async () => {
    capped = await buildTestApp({ MCP_MAX_STREAMS_PER_SESSION: '2' });
    cappedUrl = await capped.listen();
  });
  after(() => capped.close());

  const open = (session: string, lastEventId?: string) => {
    const controller = new AbortController();
    controllers.push(controller);
    const headers: Record<string, string> = {
      accept: 'text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': V2025,
    };
    if (lastEventId) headers['last-event-id'] = lastEventId;
    return { controller, response: fetch(cappedUrl, { headers, signal: controller.signal }) };
  };
  const primingId = async (response: Response) => {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('\n\n')) text += (await reader.read()).value ?? '';
    return parseSse(text)[0]!.id!;
  };

  /** A POST of the `slow` tool whose SSE reply stays open; resolves with its first event's id. */
  const slowCall = async (session: string) => {
    const controller = new AbortController();
    controllers.push(controller);
    const response = await fetch(cappedUrl, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-session-id': session,
        'mcp-protocol-version': V2025,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'slow', arguments: { ms: 60_000 }, _meta: { progressToken: 't' } },
      }),
      signal: controller.signal,
    });
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    return primingId(response);
  };

  test('beyond the limit a GET is 409 -32043; other sessions, a closed stream and a resume free a slot', {
    timeout: 30_000,
  }, async () => {
    const a = await openSession(capped.app);
    // The standalone stream and a resumed reply stream hold the session's two slots.
    const standalone = open(a);
    const standaloneResponse = await standalone.response;
    assert.equal(standaloneResponse.status, 200);
    const standaloneId = await primingId(standaloneResponse);
    const callId = await slowCall(a);
    const resumedCall = open(a, callId);
    assert.equal((await resumedCall.response).status, 200);
    const third = await open(a, callId).response;
    assert.equal(third.status, 409);
    const body = (await third.json()) as { id: unknown; error: { code: number; message: string } };
    assert.equal(body.id, null);
    assert.equal(body.error.code, ErrorCode.TooManyStreams);
    assert.match(body.error.message, /2 open GET streams \(MCP_MAX_STREAMS_PER_SESSION\)/);
    // The limit is per session.
    assert.equal((await open(await openSession(capped.app)).response).status, 200);
    // Resuming the standalone stream by its event id replaces its connection, so it is not
    // refused at the limit.
    const resumed = open(a, standaloneId);
    assert.equal((await resumed.response).status, 200);
    // A stream whose client went away frees its slot once the server sees the socket close.
    resumedCall.controller.abort();
    await until(
      async () => {
        const attempt = await open(a, callId).response;
        if (attempt.status !== 200) await attempt.body?.cancel();
        return attempt.status === 200;
      },
      { intervalMs: 20, message: 'no slot was free again after a stream closed' },
    );
    // The slow call ends now, so the server closes without waiting for it.
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } };
    assert.equal((await post(capped.app, cancel, { session: a, version: V2025 })).statusCode, 202);
  });
});
