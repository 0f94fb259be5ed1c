/**
 * The 2025-wire requests running in this process, by session and request id, so that
 * notifications/cancelled can find them. Every call on that wire enters and leaves it.
 *
 * Ids are kept as sent: `1` and `"1"` are different requests (JSON-RPC 2.0 §4). One Map per
 * session, kept while the session is quiet: a request then costs two lookups on keys whose
 * hashes are already known, where one key built from session and id would be a new string to
 * hash on every call. Quiet sessions' maps are dropped once they outnumber the busy ones.
 */
import type { RequestId } from '../base/jsonrpc.ts';

const MIN_SWEEP = 1024;

export class InflightRequests<T> {
  readonly #bySession = new Map<string, Map<RequestId, T>>();
  #sweepAt = MIN_SWEEP;

  add(session: string, id: RequestId, request: T): void {
    let running = this.#bySession.get(session);
    if (running === undefined) {
      if (this.#bySession.size >= this.#sweepAt) this.#sweep();
      running = new Map();
      this.#bySession.set(session, running);
    }
    running.set(id, request);
  }

  delete(session: string, id: RequestId): void {
    this.#bySession.get(session)?.delete(id);
  }

  get(session: string, id: RequestId): T | undefined {
    return this.#bySession.get(session)?.get(id);
  }

  /** Sessions with a map, busy or quiet (for tests). */
  get sessions(): number {
    return this.#bySession.size;
  }

  #sweep(): void {
    for (const [session, running] of this.#bySession) {
      if (running.size === 0) this.#bySession.delete(session);
    }
    // Amortised: the next sweep waits until as many maps again have been added.
    this.#sweepAt = Math.max(MIN_SWEEP, this.#bySession.size * 2);
  }
}
