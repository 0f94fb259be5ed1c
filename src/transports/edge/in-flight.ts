/**
 * The POSTs being dispatched now, by their client's presence, for a drain's cut-off to
 * interrupt: a list linked through its entries. Every POST is added and removed once; a Set
 * that grows and shrinks with the requests in flight rehashes its table as it goes, which
 * cost more than the rest of the bookkeeping (docs/performance.md).
 */
import type { ClientPresence } from '../../protocol/exchange.ts';

/** One presence in the list; `remove` takes it out (a second remove does nothing). */
export interface InFlightEntry {
  readonly presence: ClientPresence;
  prev: InFlightEntry | undefined;
  next: InFlightEntry | undefined;
}

export class InFlight {
  private _head: InFlightEntry | undefined = undefined;

  add(presence: ClientPresence): InFlightEntry {
    const head = this._head;
    const entry: InFlightEntry = { presence, prev: undefined, next: head };
    if (head !== undefined) head.prev = entry;
    this._head = entry;
    return entry;
  }

  remove(entry: InFlightEntry): void {
    const { prev, next } = entry;
    if (prev !== undefined) prev.next = next;
    else if (this._head === entry) this._head = next;
    else return; // removed already
    if (next !== undefined) next.prev = prev;
    entry.prev = undefined;
    entry.next = undefined;
  }

  /** Interrupts every request still dispatched (ClientPresence.interrupt), newest first. */
  interrupt(reason: unknown): void {
    // Read each `next` before interrupting: an interrupted request may leave the list at once.
    for (let entry = this._head; entry !== undefined; ) {
      const next = entry.next;
      entry.presence.interrupt(reason);
      entry = next;
    }
  }
}
