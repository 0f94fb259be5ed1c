/**
 * A client's `notifications/cancelled` taken to the request it names: aborted where it runs,
 * on this replica or, through the relay, on another one (a request and its cancellation may
 * reach different replicas).
 */

import type { RequestId } from '../../base/jsonrpc.ts';
import type { HubRelay } from './relay.ts';

/** Aborts the running request `requestId` of `scope` (a session) here; false when none runs here. */
export type Canceller = (scope: string, requestId: RequestId) => boolean;

export class CancelRelay {
  readonly #relay: HubRelay | undefined;
  #canceller: Canceller | undefined;

  constructor(relay?: HubRelay) {
    this.#relay = relay;
  }

  /** The dispatcher's way to abort one of its running requests (one per hub). */
  setCanceller(canceller: Canceller): void {
    this.#canceller = canceller;
  }

  /** A client cancelled `requestId` in session `scope`: aborted here, else relayed. */
  cancel(scope: string, requestId: RequestId): void {
    if (this.#canceller?.(scope, requestId)) return;
    this.#relay?.publish({ type: 'cancel', scope, requestId });
  }

  /** A cancellation another replica relayed: tried here only. */
  cancelLocal(scope: string, requestId: RequestId): void {
    this.#canceller?.(scope, requestId);
  }
}
