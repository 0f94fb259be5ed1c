/**
 * Where messages that no single request owns go: list-changed and resource-updated
 * notifications to 2025-wire sessions (their standalone GET stream, or the stdio
 * connection) and to open 2026 `subscriptions/listen` streams; and the routing of a
 * client's response back to the server-to-client request waiting for it.
 * In memory here; with several replicas an optional relay (Redis pub/sub, src/scale/) carries
 * what no local party takes to the other replicas, and `receive` takes what they relay.
 */

import { ClientAnswerError, InternalCode, ToolkitError } from '../base/errors.ts';
import { idText } from '../base/json-ids.ts';
import {
  isId,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcResponse,
  type RequestId,
} from '../base/jsonrpc.ts';
import type { Identity } from '../base/types.ts';
import { readRelayedItems, relayableItems, type TouchedItem } from '../registry/list-change.ts';
import type { ListKind } from '../registry/registry.ts';
import type { Session } from './session.ts';

/** A transport's way of sending messages to one client stream. */
export interface OutboundChannel {
  send(message: JsonRpcMessage): void;
  /**
   * Ends the client's connection while the request goes on (SSE polling, SEP-1699); the
   * client reconnects with Last-Event-ID. Absent where the transport cannot resume.
   */
  disconnect?(): Promise<void>;
}

export type ListenFilter = {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks whose `notifications/tasks` the stream wants (SEP-2663), the caller's own only. */
  taskIds?: string[];
};

/** A change every replica fans out to its own sessions and listen streams. */
export type Announcement =
  | {
      readonly type: 'list_changed';
      readonly kind: ListKind;
      /** What the change touched, to tell only the callers it concerns (list-change.ts). */
      readonly items?: readonly TouchedItem[];
    }
  | { readonly type: 'resource_updated'; readonly uri: string };

/** What one replica hands to the others. */
export type RelayedEvent =
  /** A client's answer to a server-to-client request that no local call was waiting for. */
  | { readonly type: 'response'; readonly scope: string; readonly response: JsonRpcResponse }
  /** A message for a session whose standalone stream is not on this replica. */
  | { readonly type: 'session'; readonly sessionId: string; readonly message: JsonRpcMessage }
  | { readonly type: 'announce'; readonly announcement: Announcement }
  /** A client's notifications/cancelled for a request no local call is running. */
  | { readonly type: 'cancel'; readonly scope: string; readonly requestId: RequestId };

/** Aborts the running request `requestId` of `scope` (a session) here; false when none runs here. */
export type Canceller = (scope: string, requestId: RequestId) => boolean;

/** Carries events to the other replicas; best effort (fire and forget). */
export interface HubRelay {
  publish(event: RelayedEvent): void;
}

export interface HubOptions {
  /** The other replicas; absent on a single replica. */
  relay?: HubRelay;
  /**
   * Prefix of server-to-client request ids (default `s2c-`). Replicas need distinct prefixes:
   * an answer relayed to every replica must match only the call that asked.
   */
  requestIdPrefix?: string;
}

interface Listener {
  filter: ListenFilter;
  subscriptionId: RequestId;
  channel: OutboundChannel;
  identity: Identity | undefined;
  /** Who holds it, for the per-caller cap (MCP_MAX_LISTEN_STREAMS). */
  caller: string | undefined;
}

/** Whether a message goes to a stream of the caller `identity` (undefined: auth off). */
export type AudienceCheck = (identity: Identity | undefined) => boolean;

interface Pending {
  method: string;
  resolve(result: JsonObject): void;
  reject(error: Error): void;
}

export class Hub {
  readonly #sessionChannels = new Map<string, Set<OutboundChannel>>();
  /** Sessions owned by a connection (stdio, in-process) rather than by the session store. */
  readonly #localSessions = new Map<string, Session>();
  /** Who opened each session stream (the caller of its GET or of the stdio connection). */
  readonly #channelIdentities = new WeakMap<OutboundChannel, Identity>();
  readonly #listeners = new Set<Listener>();
  readonly #pending = new Map<string, Pending>();
  readonly #announced = new Set<(a: Announcement) => void | Promise<void>>();
  readonly #relay: HubRelay | undefined;
  readonly #idPrefix: string;
  #nextId = 0;
  #canceller: Canceller | undefined;

  constructor(options: HubOptions = {}) {
    this.#relay = options.relay;
    this.#idPrefix = options.requestIdPrefix ?? 's2c-';
  }

  /**
   * Registers a stream of a session (GET stream, stdio connection); returns detach. A
   * connection that owns its session object (stdio) passes it, so subscriptions are found;
   * `identity` is the caller that opened the stream, for messages meant for some callers only.
   */
  attachSession(
    sessionId: string,
    channel: OutboundChannel,
    options: { session?: Session; identity?: Identity } = {},
  ): () => void {
    const { session, identity } = options;
    if (session) this.#localSessions.set(sessionId, session);
    if (identity) this.#channelIdentities.set(channel, identity);
    let set = this.#sessionChannels.get(sessionId);
    if (!set) {
      set = new Set();
      this.#sessionChannels.set(sessionId, set);
    }
    set.add(channel);
    return () => {
      const s = this.#sessionChannels.get(sessionId);
      if (!s) return;
      s.delete(channel);
      if (s.size === 0) {
        this.#sessionChannels.delete(sessionId);
        this.#localSessions.delete(sessionId);
      }
    };
  }

  /** The session object a connection registered, if any. */
  localSession(sessionId: string): Session | undefined {
    return this.#localSessions.get(sessionId);
  }

  /** Ids of the sessions with at least one attached stream. */
  sessionIds(): string[] {
    return [...this.#sessionChannels.keys()];
  }

  /**
   * Sends to one session's standalone streams. With no stream here it goes to the other
   * replicas when there are any (true: handed on); false when nobody can take it.
   */
  sendToSession(sessionId: string, message: JsonRpcMessage): boolean {
    const set = this.#sessionChannels.get(sessionId);
    if (!set) {
      if (!this.#relay) return false;
      this.#relay.publish({ type: 'session', sessionId, message });
      return true;
    }
    for (const channel of set) channel.send(message);
    return true;
  }

  /** Sends to every attached session stream, or to those of the callers `to` accepts. */
  broadcastToSessions(message: JsonRpcMessage, to?: AudienceCheck): void {
    for (const set of this.#sessionChannels.values())
      for (const channel of set) {
        if (!to || to(this.#channelIdentities.get(channel))) channel.send(message);
      }
  }

  /** Registers a 2026 listen stream, opened by `identity`; returns detach. */
  addListener(
    filter: ListenFilter,
    subscriptionId: RequestId,
    channel: OutboundChannel,
    identity?: Identity,
    caller?: string,
  ): () => void {
    const listener: Listener = { filter, subscriptionId, channel, identity, caller };
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** How many listen streams `caller` holds on this replica. */
  listenersOf(caller: string): number {
    let n = 0;
    for (const l of this.#listeners) if (l.caller === caller) n++;
    return n;
  }

  /**
   * Sends a notification to every listen stream whose filter (and, for messages meant for
   * some callers only, whose caller) `accepts`, tagged with its id.
   */
  publishToListeners(
    method: string,
    accepts: (filter: ListenFilter, identity: Identity | undefined) => boolean,
    params: JsonObject = {},
  ): void {
    for (const l of this.#listeners) {
      if (!accepts(l.filter, l.identity)) continue;
      const meta = {
        ...(params._meta as JsonObject | undefined),
        'io.modelcontextprotocol/subscriptionId': l.subscriptionId,
      };
      l.channel.send({ jsonrpc: '2.0', method, params: { ...params, _meta: meta } });
    }
  }

  /** Registers what this replica does with an announcement (server.ts: the fan-out). */
  onAnnounce(handler: (a: Announcement) => void | Promise<void>): () => void {
    this.#announced.add(handler);
    return () => this.#announced.delete(handler);
  }

  /** Fans a change out here (synchronously started) and on every other replica. */
  announce(announcement: Announcement): Promise<void> {
    const done = this.#fanOut(announcement);
    if (this.#relay) {
      const relayed =
        announcement.type === 'list_changed' && announcement.items
          ? { ...announcement, items: relayableItems(announcement.items) }
          : announcement;
      this.#relay.publish({ type: 'announce', announcement: relayed });
    }
    return done;
  }

  #fanOut(announcement: Announcement): Promise<void> {
    const running: Promise<void>[] = [];
    for (const handler of this.#announced) {
      const out = handler(announcement);
      if (out) running.push(out);
    }
    return running.length === 0 ? Promise.resolve() : Promise.all(running).then(() => {});
  }

  /** The dispatcher's way to abort one of its running requests (one per hub). */
  setCanceller(canceller: Canceller): void {
    this.#canceller = canceller;
  }

  /**
   * A client cancelled `requestId` in session `scope`: the call is aborted where it runs, on
   * this replica or, through the relay, on another one (a request and its cancellation may
   * reach different replicas).
   */
  cancel(scope: string, requestId: RequestId): void {
    if (this.#canceller?.(scope, requestId)) return;
    this.#relay?.publish({ type: 'cancel', scope, requestId });
  }

  /** Takes an event another replica relayed: handled here only, never relayed again. */
  receive(event: RelayedEvent): void {
    if (event.type === 'cancel') {
      const id = event.requestId;
      if (typeof event.scope === 'string' && isId(id)) this.#canceller?.(event.scope, id);
    } else if (event.type === 'response') this.#deliverLocal(event.scope, event.response);
    else if (event.type === 'session') {
      for (const channel of this.#sessionChannels.get(event.sessionId) ?? []) channel.send(event.message);
    } else void this.#fanOut(readAnnouncement(event.announcement));
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }

  /**
   * Sends a server-to-client request on `channel` and waits for the client's response,
   * routed back by `deliver`. Rejects on timeout or abort.
   */
  request(
    scope: string,
    channel: OutboundChannel,
    method: string,
    params: JsonObject,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<JsonObject> {
    const id = `${this.#idPrefix}${++this.#nextId}`;
    const key = `${scope}\u0000${id}`;
    return new Promise<JsonObject>((resolve, reject) => {
      let sent = false;
      const cleanup = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.#pending.delete(key);
      };
      // A sender that stops waiting SHOULD tell the receiver (2025-11-25 lifecycle, timeouts).
      const cancel = (reason: string) => {
        if (sent)
          channel.send({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id, reason },
          });
      };
      const onAbort = () => {
        cleanup();
        cancel('the request that needed this answer ended');
        reject(new ToolkitError(InternalCode.Cancelled, `${method} was cancelled`));
      };
      const timer = setTimeout(() => {
        cleanup();
        cancel(`no answer within ${options.timeoutMs} ms`);
        reject(
          new ToolkitError(
            InternalCode.Timeout,
            `The client did not answer ${method} within ${options.timeoutMs} ms`,
          ),
        );
      }, options.timeoutMs);
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(key, {
        method,
        resolve: (r) => {
          cleanup();
          resolve(r);
        },
        reject: (e) => {
          cleanup();
          reject(e);
        },
      });
      sent = true;
      channel.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  /**
   * Fails every server-to-client request still waiting in `scope`: the client can no longer
   * answer (stdin ended, session deleted), so the calls behind them end now, not at timeout.
   */
  failPending(scope: string, reason: string): void {
    const prefix = `${scope}\u0000`;
    for (const [key, pending] of this.#pending) {
      if (key.startsWith(prefix)) pending.reject(new ToolkitError(InternalCode.SessionClosed, reason));
    }
  }

  /**
   * Routes a client's response to the waiting request; false when nothing here waits for it
   * (then it goes to the other replicas, if any: the call may be waiting on one of them).
   */
  deliver(scope: string, response: JsonRpcResponse): boolean {
    if (this.#deliverLocal(scope, response)) return true;
    this.#relay?.publish({ type: 'response', scope, response });
    return false;
  }

  #deliverLocal(scope: string, response: JsonRpcResponse): boolean {
    const pending = this.#pending.get(`${scope}\u0000${idText(response.id)}`);
    if (!pending) return false;
    if ('error' in response) {
      pending.reject(new ClientAnswerError(pending.method, response.error));
    } else {
      pending.resolve(response.result);
    }
    return true;
  }
}

/** A relayed announcement as this replica acts on it: a list change's items checked. */
function readAnnouncement(a: Announcement): Announcement {
  if (a.type !== 'list_changed') return a;
  const { items: _items, ...rest } = a;
  const items = readRelayedItems(a.items);
  return items ? { ...rest, items } : rest;
}
