/**
 * What the hub's parts hand to the other replicas, and the relay that carries it (Redis
 * pub/sub, src/scale/hub-relay.ts); absent on a single replica.
 */

import type { JsonRpcMessage, JsonRpcResponse, RequestId } from '../../base/jsonrpc.ts';
import type { Announcement } from './announcements.ts';

/** What one replica hands to the others. */
export type RelayedEvent =
  /** A client's answer to a server-to-client request that no local call was waiting for. */
  | { readonly type: 'response'; readonly scope: string; readonly response: JsonRpcResponse }
  /** A message for a session whose standalone stream is not on this replica. */
  | { readonly type: 'session'; readonly sessionId: string; readonly message: JsonRpcMessage }
  | { readonly type: 'announce'; readonly announcement: Announcement }
  /** A client's notifications/cancelled for a request no local call is running. */
  | { readonly type: 'cancel'; readonly scope: string; readonly requestId: RequestId };

/** Carries events to the other replicas; best effort (fire and forget). */
export interface HubRelay {
  publish(event: RelayedEvent): void;
}
