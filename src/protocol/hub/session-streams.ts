/**
 * The open streams of 2025-wire sessions (a standalone GET stream, the stdio connection), for
 * messages no request owns. A session has one such stream at a time, so each message goes out
 * once (MCP 2025-11-25 "Multiple Connections": never broadcast one message across streams); the
 * HTTP transport refuses a second standalone GET (409) and hands a resumed one the same stream.
 * On one replica they are channels held here. Across replicas (a
 * `SessionFeed`, src/scale/session-feed.ts) a session's messages go into its feed instead, a
 * log every replica reads: the replica holding the session's GET stream follows it, and so
 * does the replica a client resumes on after that one stopped, whatever happened to it.
 * Without a feed, a message for a session with no stream here goes to the other replicas
 * through the relay.
 */

import type { JsonRpcMessage } from '../../base/jsonrpc.ts';
import type { Identity } from '../../base/types.ts';
import type { Session } from '../session/store.ts';
import type { OutboundChannel } from './channel.ts';
import type { HubRelay } from './relay.ts';

/** Whether a message goes to a stream of the caller `identity` (undefined: auth off). */
export type AudienceCheck = (identity: Identity | undefined) => boolean;

/** One event of a session's feed: its id (for `Last-Event-ID`) and message (undefined: none, a position only). */
export interface FeedEvent {
  readonly id: string;
  readonly message: JsonRpcMessage | undefined;
}

/** A session whose feed is open, and who opened it (undefined: auth off). */
export interface FeedSession {
  readonly sessionId: string;
  readonly identity: Identity | undefined;
}

/** A GET stream's hold on its session's feed: it, and no other stream, delivers the feed. */
export interface FeedClaim {
  /** This hold's secret; a later claim has another. */
  readonly token: string;
  /** The event id of the claim: a fresh stream starts from it (its priming event's id). */
  readonly mark: string;
  /**
   * A resume that took over from a fresh stream opened beside it (the client reconnected the
   * stream it had, after opening a new one): what that stream delivered, from this event to the
   * claim, is not delivered again.
   */
  readonly skipFrom?: string;
}

/**
 * Each 2025-wire session's standalone messages, kept where every replica reads them (Redis,
 * src/scale/session-feed.ts). The hub writes; the HTTP transport's GET streams read.
 */
export interface SessionFeed {
  /** Appends a message to the session's feed if it is open (a GET stream was opened); best effort. */
  push(sessionId: string, message: JsonRpcMessage): void;
  /** Sessions whose feed is open. */
  sessions(): Promise<readonly FeedSession[]>;
  /** Opens (or keeps open) the session's feed for `identity`; resolves with the id of its latest event. */
  open(sessionId: string, identity: Identity | undefined): Promise<string>;
  /**
   * Claims the session's feed for a GET stream of `identity`, opening it (MCP 2025-11-25
   * "Multiple Connections": one stream delivers it). Undefined while another stream holds it,
   * for a fresh GET (`resumeFrom` undefined) or a resume from before that stream's claim (a
   * stream it displaced); a resume from its claim or later (the same client stream,
   * reconnected) takes it over. Rejects (503) when the store cannot be reached.
   */
  claim(
    sessionId: string,
    identity: Identity | undefined,
    resumeFrom?: string,
  ): Promise<FeedClaim | undefined>;
  /** The session a feed event id belongs to; undefined for an id that is not a feed's. */
  sessionOf(eventId: string): string | undefined;
  /**
   * Passes the events after `eventId` to `onEvent`, then each later one as it is stored, until
   * the feed is closed or gone, or `signal` aborts. With the follower's `claim`: until another
   * stream claims the feed (nothing after that claim is passed), and the claim is renewed while
   * it runs and let go when it ends. Rejects when the store cannot be reached.
   */
  follow(
    eventId: string,
    onEvent: (event: FeedEvent) => void,
    signal: AbortSignal,
    claim?: FeedClaim,
  ): Promise<void>;
  /** Closes the session's feed (the session ended): its followers end. */
  close(sessionId: string): Promise<void>;
}

export class SessionStreams {
  /** Each session's one stream; a later attach replaces an earlier one. */
  readonly #channels = new Map<string, OutboundChannel>();
  /** Sessions owned by a connection (stdio, in-process) rather than by the session store. */
  readonly #localSessions = new Map<string, Session>();
  /** Who opened each session stream (the caller of its GET or of the stdio connection). */
  readonly #identities = new WeakMap<OutboundChannel, Identity>();
  readonly #relay: HubRelay | undefined;
  /** Across replicas: where the store's sessions' messages go; undefined on one replica. */
  readonly feed: SessionFeed | undefined;

  constructor(relay?: HubRelay, feed?: SessionFeed) {
    this.#relay = relay;
    this.feed = feed;
  }

  /**
   * Registers the stream of a session (GET stream, stdio connection); returns detach. One per
   * session: a channel attached while another is, replaces it (the earlier one's detach then
   * does nothing). A connection that owns its session object (stdio) passes it, so
   * subscriptions are found; `identity` is the caller that opened the stream, for messages
   * meant for some callers only.
   */
  attach(
    sessionId: string,
    channel: OutboundChannel,
    options: { session?: Session; identity?: Identity } = {},
  ): () => void {
    const { session, identity } = options;
    if (session) this.#localSessions.set(sessionId, session);
    if (identity) this.#identities.set(channel, identity);
    this.#channels.set(sessionId, channel);
    return () => {
      if (this.#channels.get(sessionId) !== channel) return;
      this.#channels.delete(sessionId);
      this.#localSessions.delete(sessionId);
    };
  }

  /** The session object a connection registered, if any. */
  localSession(sessionId: string): Session | undefined {
    return this.#localSessions.get(sessionId);
  }

  /** Ids of the sessions with at least one stream attached here. */
  ids(): string[] {
    return [...this.#channels.keys()];
  }

  /**
   * Sends to one session's standalone stream: the one attached here, else its feed, else the
   * other replicas through the relay (true: handed on); false when nobody can take it.
   */
  send(sessionId: string, message: JsonRpcMessage): boolean {
    const channel = this.#channels.get(sessionId);
    if (channel) {
      channel.send(message);
      return true;
    }
    if (this.feed) {
      this.feed.push(sessionId, message);
      return true;
    }
    if (!this.#relay) return false;
    this.#relay.publish({ type: 'session', sessionId, message });
    return true;
  }

  /** A message another replica relayed: to this replica's streams of the session only. */
  sendLocal(sessionId: string, message: JsonRpcMessage): void {
    this.#channels.get(sessionId)?.send(message);
  }

  /**
   * Sends to every session stream attached here, or to those of the callers `to` accepts.
   * With a feed, and `origin` (the change was made on this replica, not relayed), also to
   * every open feed: the replica where a change is made tells every session once.
   */
  broadcast(message: JsonRpcMessage, to?: AudienceCheck, origin = true): Promise<void> {
    for (const channel of this.#channels.values()) {
      if (!to || to(this.#identities.get(channel))) channel.send(message);
    }
    const feed = this.feed;
    if (!feed || !origin) return Promise.resolve();
    return feed.sessions().then((open) => {
      for (const { sessionId, identity } of open) {
        if (this.#channels.has(sessionId)) continue;
        if (!to || to(identity)) feed.push(sessionId, message);
      }
    });
  }
}
