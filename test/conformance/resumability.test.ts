/**
 * SSE resumability on the 2025 wire over a real socket (MCP 2025-11-25 "Resumability and
 * Redelivery", SEP-1699 polling): the client's connection to a tool call's stream drops
 * mid-call, it reconnects with GET and Last-Event-ID, and receives the rest of the stream
 * exactly once, the final result included.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { definePlugin, defineTool } from '../../src/index.ts';
import type { EventStore } from '../../src/transports/deps.ts';
import { createMemoryEventStore } from '../../src/transports/edge/event-store.ts';
import {
  type Fixture,
  openSession,
  post,
  request,
  type SseEvent,
  SseReader,
  sessionHeaders,
  startFixture,
  V2025,
} from './http-fixture.ts';

/** A gate the test opens; the stepper tool waits at it between its first and second progress. */
let gate = openableGate();
function openableGate(): { open(): void; wait: Promise<void> } {
  let open!: () => void;
  const wait = new Promise<void>((r) => {
    open = r;
  });
  return { open, wait };
}

const stepperPlugin = definePlugin({
  name: 'stepper',
  register(app) {
    app.add(
      defineTool(
        { name: 'stepper', description: 'Progress 1, waits at the gate, progress 2 and 3' },
        async (_a, ctx) => {
          await ctx.progress(1, 3);
          await gate.wait;
          await ctx.progress(2, 3);
          await ctx.progress(3, 3);
          return 'stepped';
        },
      ),
    );
  },
});

let fixture: Fixture | undefined;
afterEach(async () => {
  gate.open();
  await fixture?.close();
  fixture = undefined;
});

/** Starts a stepper call and reads its priming event and first progress, then drops the connection. */
async function startAndDrop(url: string, session: string): Promise<SseEvent[]> {
  gate = openableGate();
  const controller = new AbortController();
  const res = await post(
    url,
    request(7, 'tools/call', { name: 'stepper', arguments: {}, _meta: { progressToken: 'p' } }),
    sessionHeaders(session),
    controller.signal,
  );
  assert.equal(res.status, 200);
  const reader = new SseReader(res, V2025, 'tools/call');
  const priming = await reader.next();
  assert.ok(priming?.id, 'the stream opens with a priming event that has an id');
  assert.equal(priming.data, '');
  assert.equal(typeof priming.retry, 'number');
  const first = await reader.next();
  assert.equal(first?.message?.method, 'notifications/progress');
  assert.ok(first.id);
  controller.abort();
  return [priming, first];
}

function resume(url: string, session: string, lastEventId: string): Promise<Response> {
  return fetch(url, {
    headers: { accept: 'text/event-stream', 'last-event-id': lastEventId, ...sessionHeaders(session) },
  });
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(condition(), 'condition reached within 2 s');
}

/** Everything the client saw: each progress once, in order, then the one final result. */
function assertExactlyOnce(events: SseEvent[]): void {
  const ids = events.map((e) => e.id);
  assert.ok(
    ids.every((id) => id !== undefined),
    'every stored event carries an id',
  );
  assert.equal(new Set(ids).size, ids.length, `no event twice: ${ids.join(', ')}`);
  const messages = events.flatMap((e) => (e.message ? [e.message] : []));
  const progress = messages
    .filter((m) => m.method === 'notifications/progress')
    .map((m) => (m.params as { progress: number }).progress);
  assert.deepEqual(progress, [1, 2, 3]);
  const results = messages.filter((m) => 'result' in m);
  assert.equal(results.length, 1, 'the final result arrives once');
  assert.equal(results[0]?.id, 7);
  assert.deepEqual((results[0]?.result as { content: unknown } | undefined)?.content, [
    { type: 'text', text: 'stepped' },
  ]);
  assert.equal(messages.at(-1), results[0], 'the result is the last message');
}

describe('resuming a tool call stream with Last-Event-ID', () => {
  test('after the call finished: the stored rest is replayed, then the stream ends', async () => {
    fixture = await startFixture({ plugins: [stepperPlugin] });
    const session = await openSession(fixture.url);
    const seen = await startAndDrop(fixture.url, session);
    gate.open();
    await until(() => fixture!.server.dispatcher.inflightCount === 0);
    const res = await resume(fixture.url, session, seen.at(-1)!.id!);
    assert.equal(res.status, 200);
    const rest = await new SseReader(res, V2025, 'tools/call').rest();
    assertExactlyOnce([...seen, ...rest]);
  });

  test('while the call runs: the connection is re-attached and the rest goes out live', async () => {
    fixture = await startFixture({ plugins: [stepperPlugin] });
    const session = await openSession(fixture.url);
    const seen = await startAndDrop(fixture.url, session);
    const res = await resume(fixture.url, session, seen.at(-1)!.id!);
    assert.equal(res.status, 200);
    assert.equal(fixture.server.dispatcher.inflightCount, 1, 'the call outlived its first connection');
    gate.open();
    const rest = await new SseReader(res, V2025, 'tools/call').rest();
    assertExactlyOnce([...seen, ...rest]);
  });

  test('an event sent while the missed events are being read is neither lost nor doubled', async () => {
    // A store whose replay is slow: the tool goes on while resume() reads what was missed.
    const inner = createMemoryEventStore({ retention: 100 });
    const slow: EventStore = {
      append: (streamId, message) => inner.append(streamId, message),
      streamOf: (eventId) => inner.streamOf(eventId),
      release: (streamId) => inner.release(streamId),
      async after(eventId) {
        const missed = await inner.after(eventId);
        gate.open();
        await new Promise((r) => setTimeout(r, 50));
        return missed;
      },
    };
    fixture = await startFixture({ plugins: [stepperPlugin], eventStore: slow });
    const session = await openSession(fixture.url);
    const seen = await startAndDrop(fixture.url, session);
    const res = await resume(fixture.url, session, seen.at(-1)!.id!);
    const rest = await new SseReader(res, V2025, 'tools/call').rest();
    assertExactlyOnce([...seen, ...rest]);
  });

  test('a tool that closes its stream (ctx.closeStream) delivers its result after the reconnect', async () => {
    fixture = await startFixture();
    const session = await openSession(fixture.url);
    const res = await post(
      fixture.url,
      request(9, 'tools/call', { name: 'test_reconnection', arguments: {} }),
      sessionHeaders(session),
    );
    const first = await new SseReader(res, V2025, 'tools/call').rest();
    assert.ok(
      first.every((e) => !e.message || !('result' in e.message)),
      'the result is not on the closed stream',
    );
    const last = first.at(-1)?.id;
    assert.ok(last, 'the closed stream carried at least its priming event');
    const again = await resume(fixture.url, session, last);
    const rest = await new SseReader(again, V2025, 'tools/call').rest();
    const results = rest.filter((e) => e.message && 'result' in e.message);
    assert.equal(results.length, 1);
    assert.equal(results[0]?.message?.id, 9);
  });
});
