/**
 * Changes every replica fans out to its own sessions and listen streams (a list change, a
 * resource update): run here, synchronously started, and handed to the other replicas, which
 * run them the same way.
 */

import { readRelayedItems, relayableItems, type TouchedItem } from '../../registry/list-change.ts';
import type { ListKind } from '../../registry/registry.ts';
import type { HubRelay } from './relay.ts';

/** A change every replica fans out to its own sessions and listen streams. */
export type Announcement =
  | {
      readonly type: 'list_changed';
      readonly kind: ListKind;
      /** What the change touched, to tell only the callers it concerns (list-change.ts). */
      readonly items?: readonly TouchedItem[];
    }
  | { readonly type: 'resource_updated'; readonly uri: string };

export type AnnouncementHandler = (a: Announcement) => void | Promise<void>;

export class Announcements {
  readonly #handlers = new Set<AnnouncementHandler>();
  readonly #relay: HubRelay | undefined;

  constructor(relay?: HubRelay) {
    this.#relay = relay;
  }

  /** Registers what this replica does with an announcement (the fan-out); returns remove. */
  onAnnounce(handler: AnnouncementHandler): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
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

  /** An announcement another replica relayed: fanned out here only, its items checked. */
  receive(announcement: Announcement): void {
    void this.#fanOut(readAnnouncement(announcement));
  }

  #fanOut(announcement: Announcement): Promise<void> {
    const running: Promise<void>[] = [];
    for (const handler of this.#handlers) {
      const out = handler(announcement);
      if (out) running.push(out);
    }
    return running.length === 0 ? Promise.resolve() : Promise.all(running).then(() => {});
  }
}

/** A relayed announcement as this replica acts on it: a list change's items checked. */
function readAnnouncement(a: Announcement): Announcement {
  if (a.type !== 'list_changed') return a;
  const { items: _items, ...rest } = a;
  const items = readRelayedItems(a.items);
  return items ? { ...rest, items } : rest;
}
