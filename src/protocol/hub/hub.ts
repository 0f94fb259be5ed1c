/**
 * Where messages that no single request owns go, composed of one part per concern
 * (src/protocol/hub/): the 2025-wire session streams, the 2026 listen streams, the
 * server-to-client requests waiting for an answer, the cancellations of running requests and
 * the announcements (list changes, resource updates). In memory; with several replicas an
 * optional relay (Redis pub/sub, src/scale/) carries what no local party takes to the other
 * replicas, and `receive` hands what they relay to the part it concerns.
 */

import { isId } from '../../base/jsonrpc.ts';
import { Announcements } from './announcements.ts';
import { CancelRelay } from './cancel-relay.ts';
import { ClientRequests, type ClientRequestsOptions } from './client-requests.ts';
import { ListenStreams } from './listen-streams.ts';
import type { RelayedEvent } from './relay.ts';
import { type SessionFeed, SessionStreams } from './session-streams.ts';

/**
 * The other replicas (`relay`; absent on a single replica), the server-to-client id prefix,
 * and the sessions' feeds shared with the other replicas (`feed`; absent on a single replica).
 */
export type HubOptions = ClientRequestsOptions & { readonly feed?: SessionFeed };

export class Hub {
  readonly sessionStreams: SessionStreams;
  readonly listenStreams = new ListenStreams();
  readonly clientRequests: ClientRequests;
  readonly cancels: CancelRelay;
  readonly announcements: Announcements;

  constructor(options: HubOptions = {}) {
    this.sessionStreams = new SessionStreams(options.relay, options.feed);
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
}
