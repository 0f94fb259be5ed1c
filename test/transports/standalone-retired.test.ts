/**
 * A standalone GET stream retired after its grace (MCP_SSE_STANDALONE_GRACE_MS: its connection
 * stayed away), resumed with Last-Event-ID while the store keeps its events, over a real
 * socket. MCP 2025-11-25 "Resumability and Redelivery": the resume replays what the stream kept
 * after the client's id, then goes on as the session's live standalone stream; one standalone
 * stream per session still holds ("Multiple Connections": 409 beside a connected one).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { defineTool } from '../../src/registry/define.ts';
import { until } from '../helpers/until.ts';
import { firstEvent, type OpenStream, openGetStreamAt } from './get-stream-client.ts';
import { buildTestApp, openSession, parseSse, sseMessages, type TestApp, V2025 } from './http-helpers.ts';

let t: TestApp;
let url: string;
const controllers: AbortController[] = [];
before(async () => {
  t = await buildTestApp({ MCP_SSE_STANDALONE_GRACE_MS: '100' });
  url = await t.listen();
});
after(async () => {
  for (const c of controllers) c.abort();
  await t.close();
});

const openGetStream = (session: string, lastEventId?: string) =>
  openGetStreamAt(url, session, lastEventId, controllers);

/** The list_changed notifications in an SSE text. */
const listChanges = (text: string) =>
  sseMessages(parseSse(text), V2025).filter((m) => m.method === 'notifications/tools/list_changed').length;

let added = 0;
/** Adds a tool, so the server sends each session stream one `notifications/tools/list_changed`. */
const changeTools = () =>
  t.server.registry.add(defineTool({ name: `added_${++added}`, description: 'x' }, async () => 'x'));

/** The stream id of an event id (`<stream id>_<n>`). */
const streamOf = (eventId: string | undefined) => eventId?.slice(0, eventId.lastIndexOf('_'));

/**
 * Opens the session's stream, reads one change, then drops it with a change the client never
 * read stored behind it, and waits until the server retired it (the session has no stream).
 * Answers the last event id the client saw.
 */
async function retiredStream(session: string): Promise<string> {
  const stream = await openGetStream(session);
  await firstEvent(stream);
  changeTools();
  await stream.readUntil((x) => listChanges(x) === 1 && x.endsWith('\n\n'));
  const last = parseSse(stream.text()).at(-1)?.id;
  assert.ok(last);
  // Handed to the stream before the server sees the connection go: stored for a resume.
  stream.close();
  changeTools();
  await until(() => !t.server.hub.sessionStreams.ids().includes(session), {
    message: 'the dropped stream was never retired',
    timeoutMs: 30_000,
  });
  return last;
}

describe('a resume of a retired standalone stream', () => {
  test('replays what it kept, then carries the session’s notifications; a fresh GET beside it is 409', {
    timeout: 60_000,
  }, async () => {
    const session = await openSession(t.app);
    const last = await retiredStream(session);
    const resumed = await openGetStream(session, last);
    assert.equal(resumed.response.status, 200);
    // What the client missed, then a priming event of the live stream it now is.
    await resumed.readUntil((x) => listChanges(x) === 1 && parseSse(x).some((e) => e.data === '' && e.id));
    const events = parseSse(resumed.text());
    const priming = events.find((e) => e.data === '' && e.id);
    assert.equal(streamOf(events[0]?.id), streamOf(last), 'the kept event, with its own id');
    assert.notEqual(streamOf(priming?.id), streamOf(last), 'then the live stream, a new one');
    assert.ok(t.server.hub.sessionStreams.ids().includes(session), 'the session has its stream again');
    changeTools();
    await resumed.readUntil((x) => listChanges(x) === 2 && x.endsWith('\n\n'));
    const fresh = await openGetStream(session);
    assert.equal(fresh.response.status, 409);
    await fresh.response.body?.cancel();
    changeTools();
    await resumed.readUntil((x) => listChanges(x) === 3 && x.endsWith('\n\n'));
    resumed.close();
  });

  test('beside a fresh stream: refused while that one is connected; after it drops, the kept events and then that stream', {
    timeout: 60_000,
  }, async () => {
    const session = await openSession(t.app);
    const last = await retiredStream(session);
    // The client opened a fresh stream meanwhile.
    const fresh = await openGetStream(session);
    assert.equal(fresh.response.status, 200);
    await firstEvent(fresh);
    const stale = await openGetStream(session, last);
    assert.equal(stale.response.status, 409);
    await stale.response.body?.cancel();
    // That one drops (and is within its grace); the retired stream's resume gets what it kept,
    // then goes on as the session's stream.
    fresh.close();
    let resumed: OpenStream | undefined;
    await until(
      async () => {
        const probe = await openGetStream(session, last);
        if (probe.response.status === 200) resumed = probe;
        else await probe.response.body?.cancel();
        return resumed !== undefined;
      },
      { message: 'the resume was refused after the fresh stream dropped', timeoutMs: 30_000 },
    );
    assert.ok(resumed);
    await resumed.readUntil((x) => listChanges(x) === 1 && x.endsWith('\n\n'));
    changeTools();
    await resumed.readUntil((x) => listChanges(x) === 2 && x.endsWith('\n\n'));
    resumed.close();
  });
});
