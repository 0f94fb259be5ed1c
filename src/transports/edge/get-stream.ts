/**
 * GET on the MCP endpoint: a 2025-wire session's standalone SSE stream (list changes, resource
 * updates, server-to-client requests no call owns), and resumption with Last-Event-ID of a
 * stream that dropped, whether a POST's reply stream (live here, finished, or live on another
 * replica through a shared store) or a standalone one (MCP 2025-11-25 "Resumability").
 *
 * On one replica a standalone stream is held here and kept a while after its connection
 * drops. Across replicas it reads the session's feed (the hub's `SessionFeed`), where every
 * replica writes the session's messages: resumed on any replica, it replays what was stored
 * after the client's last id and carries on, as long as a fresh stream would.
 */
import { randomUUID } from 'node:crypto';
import { Refusal } from '../../base/refusals.ts';
import type { SessionFeed } from '../../protocol/hub/session-streams.ts';
import type { Session } from '../../protocol/session/store.ts';
import { REV2025 } from '../../protocol/wires/classify.ts';
import { header } from '../../protocol/wires/wire.ts';
import type { EventStore } from '../deps.ts';
import type { EdgeRequest } from './host.ts';
import { refuse } from './refuse.ts';
import {
  accepts,
  holdStream,
  type RouteState,
  refuseStoreError,
  sessionFor,
  streamHeaders,
} from './route-state.ts';
import { followStored, replayFinished, SseStream } from './sse.ts';

/** How long a dropped standalone stream stays attached, for a reconnect to resume it. */
const STANDALONE_GRACE_MS = 60_000;

/** Answers a GET (charged to the rate limit already): a session's stream, new or resumed. */
export async function handleGet(state: RouteState, req: EdgeRequest, reply: unknown): Promise<unknown> {
  const { deps, options, store, live, standalone, host } = state;
  {
    if (!accepts(req, 'text/event-stream')) {
      return refuse(state, req, reply, Refusal.streamNeedsEventStream());
    }
    const session = await sessionFor(state, req, reply);
    if (!session) return reply;
    const lastEventId = header(req.headers, 'last-event-id');
    const feed = deps.hub.sessionStreams.feed;
    // An event of this session's feed: resumed from there, on whichever replica.
    if (lastEventId && feed?.sessionOf(lastEventId) === session.id) {
      return feedStream(state, req, reply, session, feed, lastEventId);
    }
    let streamId: string | undefined;
    try {
      streamId = lastEventId ? await store.streamOf(lastEventId) : undefined;
    } catch (err) {
      refuseStoreError(state, req, reply, err);
      return reply;
    }
    if (feed && !streamId) return feedStream(state, req, reply, session, feed, undefined);
    // Resuming a standalone stream: what it missed, then a fresh standalone stream.
    let replay: Awaited<ReturnType<EventStore['after']>> | undefined;
    const previous = streamId ? standalone.get(streamId) : undefined;
    if (lastEventId && previous?.sessionId === session.id) {
      previous.retire();
      try {
        replay = await store.after(lastEventId);
      } catch (err) {
        refuseStoreError(state, req, reply, err);
        return reply;
      }
    }
    // Counted from here until the socket closes; resuming a standalone stream above has
    // already let go of the connection it replaces.
    const release = holdStream(state, session.id);
    if (!release) {
      return refuse(state, req, reply, Refusal.tooManyStreams(options.limits.maxStreamsPerSession));
    }
    const sink = host.stream(reply, streamHeaders(session.id));
    sink.onClose(release);
    if (lastEventId && streamId && replay === undefined) {
      const entry = live.get(streamId);
      const follow = store.follow?.bind(store);
      if (entry && entry.sessionId === session.id) {
        await entry.stream.resume(sink, lastEventId);
      } else if (follow) {
        // A shared store: the stream may still be live on another replica.
        await followStored(sink, follow, lastEventId, { keepAliveMs: options.sse.keepAliveMs });
      } else {
        await replayFinished(sink, store, lastEventId);
      }
      return reply;
    }
    // Standalone events are stored too, so the priming event's id lets a client resume
    // (2025-11-25 SSE resumability) and get the notifications it missed.
    const resumable = REV2025.resumable(session);
    const stream = new SseStream(sink, {
      streamId: randomUUID(),
      store: resumable ? store : undefined,
      keepAliveMs: options.sse.keepAliveMs,
      primeRetryMs: resumable ? options.sse.retryMs : undefined,
      replay,
      logger: deps.logger,
    });
    const detach = deps.hub.sessionStreams.attach(session.id, stream, { identity: req.mcpIdentity });
    if (!resumable) {
      sink.onClose(detach);
      return reply;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const retire = () => {
      release();
      clearTimeout(timer);
      detach();
      standalone.delete(stream.streamId);
      // Ends the connection if it is still open (DELETE) and lets the store forget the stream.
      void stream.finish().catch(() => {});
    };
    standalone.set(stream.streamId, { sessionId: session.id, retire });
    sink.onClose(() => {
      timer = setTimeout(retire, STANDALONE_GRACE_MS);
      (timer as { unref?: () => void }).unref?.();
    });
    return reply;
  }
}

/**
 * A standalone stream across replicas: the session's feed, opened (or kept open) for this
 * caller, followed from `resumeFrom` (a resume) or from its latest event (a fresh stream,
 * whose priming event carries that id) until the session ends or the client goes away.
 */
async function feedStream(
  state: RouteState,
  req: EdgeRequest,
  reply: unknown,
  session: Session,
  feed: SessionFeed,
  resumeFrom: string | undefined,
): Promise<unknown> {
  const { options, host } = state;
  let latest: string;
  try {
    latest = await feed.open(session.id, req.mcpIdentity);
  } catch (err) {
    refuseStoreError(state, req, reply, err);
    return reply;
  }
  const release = holdStream(state, session.id);
  if (!release) {
    return refuse(state, req, reply, Refusal.tooManyStreams(options.limits.maxStreamsPerSession));
  }
  const sink = host.stream(reply, streamHeaders(session.id));
  sink.onClose(release);
  const resumable = REV2025.resumable(session);
  await followStored(sink, feed.follow.bind(feed), resumeFrom ?? latest, {
    keepAliveMs: options.sse.keepAliveMs,
    prime: resumeFrom === undefined && resumable ? { retryMs: options.sse.retryMs } : undefined,
    ids: resumable,
  });
  return reply;
}
