/**
 * Where messages that no single request owns go, composed of one part per concern
 * (src/protocol/hub/): the 2025-wire session streams, the 2026 listen streams, the
 * server-to-client requests waiting for an answer, the cancellations of running requests and
 * the announcements (list changes, resource updates). In memory; with several replicas an
 * optional relay (Redis pub/sub, src/scale/) carries what no local party takes to the other
 * replicas, and `receive` hands what they relay to the part it concerns.
 */

import type { JsonObject, JsonRpcMessage, JsonRpcResponse, RequestId } from '../base/jsonrpc.ts';
import { isId } from '../base/jsonrpc.ts';
import type { Identity } from '../base/types.ts';
import { type Announcement, type AnnouncementHandler, Announcements } from './hub/announcements.ts';
import { type Canceller, CancelRelay } from './hub/cancel-relay.ts';
import type { OutboundChannel } from './hub/channel.ts';
import { ClientRequests, type ClientRequestsOptions } from './hub/client-requests.ts';
import { type ListenFilter, ListenStreams } from './hub/listen-streams.ts';
import type { RelayedEvent } from './hub/relay.ts';
import { type AudienceCheck, SessionStreams } from './hub/session-streams.ts';
import type { Session } from './session.ts';

/** The other replicas (`relay`; absent on a single replica) and the server-to-client id prefix. */
export type HubOptions = ClientRequestsOptions;

export class Hub {
  readonly sessionStreams: SessionStreams;
  readonly listenStreams = new ListenStreams();
  readonly clientRequests: ClientRequests;
  readonly cancels: CancelRelay;
  readonly announcements: Announcements;

  constructor(options: HubOptions = {}) {
    this.sessionStreams = new SessionStreams(options.relay);
    this.clientRequests = new ClientRequests(options);
    this.cancels = new CancelRelay(options.relay);
    this.announcements = new Announcements(options.relay);
  }

  /** Takes an event another replica relayed: handled here only, never relayed again. */
  receive(event: RelayedEvent): void {
    if (event.type === 'cancel') {
      const id = event.requestId;
      if (typeof event.scope === 'string' && isId(id)) this.cancels.cancelLocal(event.scope, id);
    } else if (event.type === 'response') this.clientRequests.deliverLocal(event.scope, event.response);
    else if (event.type === 'session') this.sessionStreams.sendLocal(event.sessionId, event.message);
    else this.announcements.receive(event.announcement);
  }

  // Session streams (SessionStreams).
  attachSession(
    sessionId: string,
    channel: OutboundChannel,
    options?: { session?: Session; identity?: Identity },
  ): () => void {
    return this.sessionStreams.attach(sessionId, channel, options);
  }
  localSession(sessionId: string): Session | undefined {
    return this.sessionStreams.localSession(sessionId);
  }
  sessionIds(): string[] {
    return this.sessionStreams.ids();
  }
  sendToSession(sessionId: string, message: JsonRpcMessage): boolean {
    return this.sessionStreams.send(sessionId, message);
  }
  broadcastToSessions(message: JsonRpcMessage, to?: AudienceCheck): void {
    this.sessionStreams.broadcast(message, to);
  }

  // Listen streams (ListenStreams).
  addListener(
    filter: ListenFilter,
    subscriptionId: RequestId,
    channel: OutboundChannel,
    identity?: Identity,
    caller?: string,
  ): () => void {
    return this.listenStreams.add(filter, subscriptionId, channel, identity, caller);
  }
  listenersOf(caller: string): number {
    return this.listenStreams.of(caller);
  }
  get listenerCount(): number {
    return this.listenStreams.count;
  }
  publishToListeners(
    method: string,
    accepts: (filter: ListenFilter, identity: Identity | undefined) => boolean,
    params?: JsonObject,
  ): void {
    this.listenStreams.publish(method, accepts, params);
  }

  // Announcements (Announcements).
  onAnnounce(handler: AnnouncementHandler): () => void {
    return this.announcements.onAnnounce(handler);
  }
  announce(announcement: Announcement): Promise<void> {
    return this.announcements.announce(announcement);
  }

  // Cancellations (CancelRelay).
  setCanceller(canceller: Canceller): void {
    this.cancels.setCanceller(canceller);
  }
  cancel(scope: string, requestId: RequestId): void {
    this.cancels.cancel(scope, requestId);
  }

  // Server-to-client requests (ClientRequests).
  request(
    scope: string,
    channel: OutboundChannel,
    method: string,
    params: JsonObject,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<JsonObject> {
    return this.clientRequests.request(scope, channel, method, params, options);
  }
  failPending(scope: string, reason: string): void {
    this.clientRequests.failPending(scope, reason);
  }
  deliver(scope: string, response: JsonRpcResponse): boolean {
    return this.clientRequests.deliver(scope, response);
  }
}
