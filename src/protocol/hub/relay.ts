/**
 * What the hub's parts hand to the other replicas, and the relay that carries it (Redis
 * pub/sub, src/scale/hub-relay.ts); absent on a single replica.
 */

import type { JsonRpcMessage, JsonRpcResponse, RequestId } from '../../base/jsonrpc.ts';
import type { TouchedItem } from '../../registry/list-change.ts';
import type { ListKind } from '../../registry/registry.ts';

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

/** Carries events to the other replicas; best effort (fire and forget). */
export interface HubRelay {
  publish(event: RelayedEvent): void;
}
