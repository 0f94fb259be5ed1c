/**
 * The open streams of 2025-wire sessions (a standalone GET stream, the stdio connection), for
 * messages no request owns; with no stream here, a session's message goes to the other
 * replicas through the relay.
 */

import type { JsonRpcMessage } from '../../base/jsonrpc.ts';
import type { Identity } from '../../base/types.ts';
import type { Session } from '../session.ts';
import type { OutboundChannel } from './channel.ts';
import type { HubRelay } from './relay.ts';

/** Whether a message goes to a stream of the caller `identity` (undefined: auth off). */
export type AudienceCheck = (identity: Identity | undefined) => boolean;

export class SessionStreams {
  readonly #channels = new Map<string, Set<OutboundChannel>>();
  /** Sessions owned by a connection (stdio, in-process) rather than by the session store. */
  readonly #localSessions = new Map<string, Session>();
  /** Who opened each session stream (the caller of its GET or of the stdio connection). */
  readonly #identities = new WeakMap<OutboundChannel, Identity>();
  readonly #relay: HubRelay | undefined;

  constructor(relay?: HubRelay) {
    this.#relay = relay;
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

  /** Ids of the sessions with at least one attached stream. */
  ids(): string[] {
    return [...this.#channels.keys()];
  }

  /**
   * Sends to one session's standalone streams. With no stream here it goes to the other
   * replicas when there are any (true: handed on); false when nobody can take it.
   */
  send(sessionId: string, message: JsonRpcMessage): boolean {
    const set = this.#channels.get(sessionId);
    if (!set) {
      if (!this.#relay) return false;
      this.#relay.publish({ type: 'session', sessionId, message });
      return true;
    }
    for (const channel of set) channel.send(message);
    return true;
  }

  /** A message another replica relayed: to this replica's streams of the session only. */
  sendLocal(sessionId: string, message: JsonRpcMessage): void {
    for (const channel of this.#channels.get(sessionId) ?? []) channel.send(message);
  }

  /** Sends to every attached session stream, or to those of the callers `to` accepts. */
  broadcast(message: JsonRpcMessage, to?: AudienceCheck): void {
    for (const set of this.#channels.values())
      for (const channel of set) {
        if (!to || to(this.#identities.get(channel))) channel.send(message);
      }
  }
}
