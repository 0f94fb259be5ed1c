/**
 * GET on the MCP endpoint: a 2025-wire session's standalone SSE stream (list changes, resource
 * updates, server-to-client requests no call owns), and resumption with Last-Event-ID of a
 * stream that dropped, whether a POST's reply stream (live here, finished, or live on another
 * replica through a shared store) or a standalone one (MCP 2025-11-25 "Resumability").
 *
 * On one replica a standalone stream is held here and kept a while after its connection
 * drops (MCP_SSE_STANDALONE_GRACE_MS); a resume after it was retired replays what it kept and
 * goes on as the session's live standalone stream. Across replicas it reads the session's
 * feed (the hub's `SessionFeed`), where every replica writes the session's messages: resumed
 * on any replica, it replays what was stored after the client's last id and carries on, as
 * long as a fresh stream would (the feed is never retired while its session lives).
 */
import { Refusal } from '../../base/refusals.ts';
import type { FeedClaim, SessionFeed } from '../../protocol/hub/session-streams.ts';
import type { Session } from '../../protocol/session/store.ts';
import { profileOf } from '../../protocol/wires/classify.ts';
import type { WireProfile } from '../../protocol/wires/profile.ts';
import { header } from '../../protocol/wires/wire.ts';
import type { StoredEvent } from '../deps.ts';
import { RELEASED_STREAM_KEPT_MS, writtenBefore } from './event-store.ts';
import type { EdgeRequest, StreamSink } from './host.ts';
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
import type { StandaloneStream } from './standalone-stream.ts';
import { isStreamOf, newStreamId } from './stream-ids.ts';

/** Answers a GET (charged to the rate limit already): a session's stream, new or resumed. */
export async function handleGet(state: RouteState, req: EdgeRequest, reply: unknown): Promise<unknown> {
  const { deps, options, store, live, standalone, host } = state;
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
  // Another session's stream is no stream of this one: nothing of it is replayed.
  if (streamId !== undefined && !isStreamOf(streamId, session.id)) streamId = undefined;
  if (feed && !streamId) return feedStream(state, req, reply, session, feed, undefined);
  const current = standalone.get(session.id);
  // A resume of the session's standalone stream takes it over: what it missed, then the rest.
  const resuming = lastEventId !== undefined && current !== undefined && current.streamId === streamId;
  // A resume of its standalone stream retired since (the connection stayed away past the grace)
  // replays what was stored of it and goes on as the session's live standalone stream (MCP
  // 2025-11-25 "Resumability and Redelivery"): ended as a finished stream, it would send the
  // client back to resume it, and what came meanwhile would go to no stream.
  const revived =
    lastEventId !== undefined &&
    streamId !== undefined &&
    !resuming &&
    state.retiredStandalone.get(streamId) === session.id
      ? lastEventId
      : undefined;
  if (lastEventId && streamId && !resuming && revived === undefined) {
    // A POST's reply stream, live here, finished, or (a shared store) live on another replica.
    const release = holdStream(state, session.id);
    if (!release) {
      return refuse(state, req, reply, Refusal.tooManyStreams(options.limits.maxStreamsPerSession));
    }
    const sink = host.stream(reply, streamHeaders(session.id));
    sink.onClose(release);
    const entry = live.get(streamId);
    const follow = store.follow?.bind(store);
    if (entry && entry.sessionId === session.id) {
      await entry.stream.resume(sink, lastEventId);
    } else if (follow) {
      await followStored(sink, follow, lastEventId, { keepAliveMs: options.sse.keepAliveMs });
    } else {
      await replayFinished(sink, store, lastEventId);
    }
    return reply;
  }
  // One standalone stream per session (2025-11-25 "Multiple Connections": a message goes out
  // on one stream only): a fresh GET while it has a connection is refused, and so is a resume
  // from a connection the open one displaced (taking over in turn, the two would end each
  // other's connections for ever).
  const takeover = resuming ? current.takeover(lastEventId) : undefined;
  if (current?.connected() && (!resuming || !takeover)) {
    return refuse(state, req, reply, Refusal.standaloneStreamOpen());
  }
  // What the retired stream kept after the client's last event, read before anything is opened.
  let missed: readonly StoredEvent[] | undefined;
  if (revived !== undefined && !current) {
    try {
      missed = await store.after(revived);
    } catch (err) {
      refuseStoreError(state, req, reply, err);
      return reply;
    }
  }
  // Counted from here until the socket closes; a resume has let go of the connection it replaces.
  if (resuming) current.uncount();
  const release = holdStream(state, session.id);
  if (!release) {
    return refuse(state, req, reply, Refusal.tooManyStreams(options.limits.maxStreamsPerSession));
  }
  const sink = host.stream(reply, streamHeaders(session.id));
  if (current) {
    // The client's new connection of its stream (a resume, or a fresh GET after it dropped):
    // the old connection, if the server still holds it (half-open), ends. A resume of the
    // retired stream gets what that one kept (the store reads it by the event id) first.
    const resume = resuming
      ? { after: lastEventId, ...takeover }
      : revived !== undefined
        ? { after: revived }
        : undefined;
    await current.handOver(sink, release, resume);
    return reply;
  }
  openStandalone(state, req, session, sink, release, missed);
  return reply;
}

/**
 * Opens the session's standalone stream on `sink`. A connection that drops leaves it attached
 * for a grace period (its events go on into the store), so a reconnect with Last-Event-ID gets
 * what it missed; a client that cannot resume (before 2025-11-25) has it end with its connection.
 * `replay`: what a retired stream of the session kept for this client, written first.
 */
function openStandalone(
  state: RouteState,
  req: EdgeRequest,
  session: Session,
  first: StreamSink,
  firstRelease: () => void,
  replay?: readonly StoredEvent[],
): void {
  const { deps, options, store, standalone } = state;
  // Standalone events are stored too, so the priming event's id lets a client resume
  // (2025-11-25 SSE resumability) and get the notifications it missed.
  const resumable = sessionProfile(session).resumable(session);
  const primeRetryMs = resumable ? options.sse.retryMs : undefined;
  const stream = new SseStream(first, {
    streamId: newStreamId(session.id),
    store: resumable ? store : undefined,
    keepAliveMs: options.sse.keepAliveMs,
    primeRetryMs,
    replay,
    logger: deps.logger,
  });
  const detach = deps.hub.sessionStreams.attach(session.id, stream, { identity: req.mcpIdentity });
  let sink: StreamSink | undefined;
  let counted: (() => void) | undefined;
  /** Where the connection began: its priming event, written after any replay (undefined: the first). */
  let start: string | undefined;
  /** A fresh connection (no Last-Event-ID) that followed another: where that one began. */
  let followed: { start: string | undefined } | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let retired = false;
  const watch = (next: StreamSink, release: () => void) => {
    sink = next;
    counted = release;
    clearTimeout(timer);
    next.onClose(() => {
      release();
      // A connection the stream was handed on from: the stream is not dropped.
      if (sink !== next) return;
      sink = undefined;
      if (!resumable) return entry.retire();
      timer = setTimeout(() => entry.retire(), options.sse.standaloneGraceMs);
      (timer as { unref?: () => void }).unref?.();
    });
  };
  const entry: StandaloneStream = {
    streamId: stream.streamId,
    connected: () => sink !== undefined,
    takeover(id) {
      // From the open connection's start or later: the same client stream, reconnected.
      if (start === undefined || !writtenBefore(id, start)) return {};
      // The connection a fresh one followed: it gets what nobody delivered, up to that one.
      if (followed && (followed.start === undefined || !writtenBefore(id, followed.start)))
        return { until: start };
      return sink === undefined ? {} : undefined;
    },
    uncount: () => counted?.(),
    async handOver(next, release, resume) {
      watch(next, release);
      followed = resume ? undefined : { start };
      start = resume?.after;
      const until = resume?.until;
      await stream.handOver(next, {
        after: resume?.after,
        primeRetryMs,
        replays: until === undefined ? undefined : (id) => writtenBefore(id, until),
      });
      // The priming event written after the replay: the client resumes from it or later.
      if (sink === next) start = stream.lastEventId;
    },
    retire() {
      if (retired) return;
      retired = true;
      clearTimeout(timer);
      detach();
      if (standalone.get(session.id) === entry) standalone.delete(session.id);
      // A resume of it, while the store keeps it, goes on as the session's live stream.
      if (resumable) rememberRetired(state, stream.streamId, session.id);
      // Ends the connection if it is still open (DELETE) and lets the store forget the stream.
      void stream.finish().catch(() => {});
    },
  };
  standalone.set(session.id, entry);
  // The first connection displaced none: no event of the stream precedes it.
  watch(first, firstRelease);
}

/**
 * Records a retired standalone stream of `sessionId` for as long as the in-memory event store
 * keeps a finished stream's events (`RELEASED_STREAM_KEPT_MS`): a resume of it meanwhile is
 * served as the session's live standalone stream (handleGet).
 */
function rememberRetired(state: RouteState, streamId: string, sessionId: string): void {
  const { retiredStandalone } = state;
  retiredStandalone.set(streamId, sessionId);
  const timer = setTimeout(() => retiredStandalone.delete(streamId), RELEASED_STREAM_KEPT_MS);
  (timer as { unref?: () => void }).unref?.();
}

/** The wire profile of a 2025-wire session: the one that speaks its negotiated version. */
function sessionProfile(session: Session): WireProfile {
  return profileOf('2025', session.protocolVersion);
}

/**
 * A standalone stream across replicas: the session's feed, claimed for this connection (one
 * stream delivers it, on whichever replica: a fresh GET while another holds it is refused, a
 * resume takes it over) and followed from `resumeFrom` (a resume) or from the claim (a fresh
 * stream, whose priming event carries its id) until the session ends, the client goes away or
 * a resume elsewhere takes the feed over.
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
  // Counted first: a claim is made only for a connection that is then served.
  const release = holdStream(state, session.id);
  if (!release) {
    return refuse(state, req, reply, Refusal.tooManyStreams(options.limits.maxStreamsPerSession));
  }
  let claim: FeedClaim | undefined;
  try {
    claim = await feed.claim(session.id, req.mcpIdentity, resumeFrom);
  } catch (err) {
    release();
    refuseStoreError(state, req, reply, err);
    return reply;
  }
  if (!claim) {
    release();
    return refuse(state, req, reply, Refusal.standaloneStreamOpen());
  }
  const held = claim;
  const sink = host.stream(reply, streamHeaders(session.id));
  sink.onClose(release);
  const resumable = sessionProfile(session).resumable(session);
  await followStored(
    sink,
    (id, onEvent, signal) => feed.follow(id, onEvent, signal, held),
    resumeFrom ?? held.mark,
    {
      keepAliveMs: options.sse.keepAliveMs,
      prime: resumeFrom === undefined && resumable ? { retryMs: options.sse.retryMs } : undefined,
      ids: resumable,
    },
  );
  return reply;
}
