/**
 * The open streams of 2025-wire sessions (a standalone GET stream, the stdio connection), for
 * messages no request owns. On one replica they are channels held here. Across replicas (a
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
  /** The session a feed event id belongs to; undefined for an id that is not a feed's. */
  sessionOf(eventId: string): string | undefined;
  /**
   * Passes the events after `eventId` to `onEvent`, then each later one as it is stored, until
   * the feed is closed or gone, or `signal` aborts. Rejects when the store cannot be reached.
   */
  follow(eventId: string, onEvent: (event: FeedEvent) => void, signal: AbortSignal): Promise<void>;
  /** Closes the session's feed (the session ended): its followers end. */
  close(sessionId: string): Promise<void>;
}

export class SessionStreams {
  readonly #channels = new Map<string, Set<OutboundChannel>>();
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
   * Registers a stream of a session (GET stream, stdio connection); returns detach. A
   * connection that owns its session object (stdio) passes it, so subscriptions are found;
   * `identity` is the caller that opened the stream, for messages meant for some callers only.
   */
  attach(
    sessionId: string,
    channel: OutboundChannel,
    options: { session?: Session; identity?: Identity } = {},
  ): () => void {
    const { session, identity } = options;
    if (session) this.#localSessions.set(sessionId, session);
    if (identity) this.#identities.set(channel, identity);
    let set = this.#channels.get(sessionId);
    if (!set) {
      set = new Set();
      this.#channels.set(sessionId, set);
    }
    set.add(channel);
    return () => {
      const s = this.#channels.get(sessionId);
      if (!s) return;
      s.delete(channel);
      if (s.size === 0) {
        this.#channels.delete(sessionId);
        this.#localSessions.delete(sessionId);
      }
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
   * Sends to one session's standalone streams: those attached here, else its feed, else the
   * other replicas through the relay (true: handed on); false when nobody can take it.
   */
  send(sessionId: string, message: JsonRpcMessage): boolean {
    const set = this.#channels.get(sessionId);
    if (set) {
      for (const channel of set) channel.send(message);
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
    for (const channel of this.#channels.get(sessionId) ?? []) channel.send(message);
  }

  /**
   * Sends to every session stream attached here, or to those of the callers `to` accepts.
   * With a feed, and `origin` (the change was made on this replica, not relayed), also to
   * every open feed: the replica where a change is made tells every session once.
   */
  broadcast(message: JsonRpcMessage, to?: AudienceCheck, origin = true): Promise<void> {
    for (const set of this.#channels.values())
      for (const channel of set) {
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
