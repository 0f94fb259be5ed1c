/**
 * The requests a dispatcher is running. Each one enters once when its handler starts and
 * leaves once when it ends, and while it runs this is where the triggers that abort it find
 * it: the client going away (its exchange's `ClientPresence`) and, on the 2025 wire, the
 * client's notifications/cancelled (by session and request id). Both abort it through its one
 * entry, `abort(reason)` (src/execution/cancellation.ts), which keeps the first reason.
 *
 * Ids are kept as sent: `1` and `"1"` are different requests (JSON-RPC 2.0 §4); an integer
 * id past Number.MAX_SAFE_INTEGER (a `BigId`) is keyed by its value (`idKey`). One Map per
 * session, kept while the session is quiet: a request then costs two lookups on keys whose
 * hashes are already known, where one key built from session and id would be a new string to
 * hash on every call. Quiet sessions' maps are dropped once they outnumber the busy ones.
 */
import { idKey } from '../base/json-ids.ts';
import type { RequestId } from '../base/jsonrpc.ts';
import type { Abortable, ClientPresence } from './exchange.ts';

const MIN_SWEEP = 1024;

export class RunningRequests<T extends Abortable> {
  readonly #bySession = new Map<string, Map<string | number | bigint, T>>();
  #sweepAt = MIN_SWEEP;
  #count = 0;

  /** How many requests are running (graceful shutdown waits for 0). */
  get count(): number {
    return this.#count;
  }

  /**
   * `request` starts running: aborted if the client of `presence` leaves before it ends (at
   * once if it has already left), and found by `cancel(scope, id)` when `scope` is its 2025
   * session. Pair with `leave` and the same arguments.
   */
  enter(request: T, id: RequestId, presence: ClientPresence | undefined, scope: string | undefined): void {
    this.#count++;
    if (scope !== undefined) this.#add(scope, id, request);
    presence?.track(request);
  }

  leave(request: T, id: RequestId, presence: ClientPresence | undefined, scope: string | undefined): void {
    this.#count--;
    if (scope !== undefined) this.#bySession.get(scope)?.delete(idKey(id));
    presence?.untrack(request);
  }

  /** Aborts request `id` of session `scope` with `reason`; false when it does not run here. */
  cancel(scope: string, id: RequestId, reason: unknown): boolean {
    const request = this.#bySession.get(scope)?.get(idKey(id));
    request?.abort(reason);
    return request !== undefined;
  }

  /** Sessions with a map, busy or quiet (for tests). */
  get sessions(): number {
    return this.#bySession.size;
  }

  #add(session: string, id: RequestId, request: T): void {
    let running = this.#bySession.get(session);
    if (running === undefined) {
      if (this.#bySession.size >= this.#sweepAt) this.#sweep();
      running = new Map();
      this.#bySession.set(session, running);
    }
    running.set(idKey(id), request);
  }

  #sweep(): void {
    for (const [session, running] of this.#bySession) {
      if (running.size === 0) this.#bySession.delete(session);
    }
    // Amortised: the next sweep waits until as many maps again have been added.
    this.#sweepAt = Math.max(MIN_SWEEP, this.#bySession.size * 2);
  }
}
