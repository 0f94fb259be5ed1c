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
import {
  buildTestApp,
  openSession,
  parseSse,
  type SseEvent,
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

interface OpenStream {
  readonly response: Response;
  /** Reads until `done(text so far)` holds; fails if the stream ends first. */
  readUntil(done: (text: string) => boolean): Promise<string>;
}

async function openGetStream(session: string): Promise<OpenStream> {
  const controller = new AbortController();
  controllers.push(controller);
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': V2025 },
    signal: controller.signal,
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  return {
    response,
    async readUntil(done) {
      while (!done(text)) {
        const chunk = await reader.read();
        assert.ok(!chunk.done, 'the stream stays open');
        text += chunk.value;
      }
      return text;
    },
  };
}

/** The first complete event of a stream. */
async function firstEvent(stream: OpenStream): Promise<SseEvent> {
  const text = await stream.readUntil((x) => x.includes('\n\n'));
  return parseSse(text)[0]!;
}

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

  test('beyond the limit a GET is 409 -32043; other sessions, a closed stream and a resume free a slot', {
    timeout: 30_000,
  }, async () => {
    const a = await openSession(capped.app);
    const first = open(a);
    const firstResponse = await first.response;
    const second = await open(a).response;
    assert.deepEqual([firstResponse.status, second.status], [200, 200]);
    const firstId = await primingId(firstResponse);
    const third = await open(a).response;
    assert.equal(third.status, 409);
    const body = (await third.json()) as { id: unknown; error: { code: number; message: string } };
    assert.equal(body.id, null);
    assert.equal(body.error.code, ErrorCode.TooManyStreams);
    assert.match(body.error.message, /2 open GET streams \(MCP_MAX_STREAMS_PER_SESSION\)/);
    // The limit is per session.
    assert.equal((await open(await openSession(capped.app)).response).status, 200);
    // Resuming the first stream by its event id replaces it, so it is not refused at the limit.
    const resumed = open(a, firstId);
    assert.equal((await resumed.response).status, 200);
    // A stream whose client went away frees its slot once the server sees the socket close.
    resumed.controller.abort();
    await until(
      async () => {
        const attempt = await open(a).response;
        if (attempt.status !== 200) await attempt.body?.cancel();
        return attempt.status === 200;
      },
      { intervalMs: 20, message: 'no slot was free again after a stream closed' },
    );
  });
});
