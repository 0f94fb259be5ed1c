/**
 * Changes every replica fans out to its own sessions and listen streams (a list change, a
 * resource update): run here, synchronously started, and handed to the other replicas, which
 * run them the same way (`createFanOut`: what a replica does with one).
 */

import { notification } from '../../base/jsonrpc.ts';
import type { Identity } from '../../base/types.ts';
import { concerns, type ListChange, readRelayedItems, relayableItems } from '../../registry/list-change.ts';
import type { Registry } from '../../registry/registry.ts';
import type { Visibility } from '../../registry/visibility.ts';
import type { SessionStore } from '../session/store.ts';
import type { ListenStreams } from './listen-streams.ts';
import type { Announcement, HubRelay } from './relay.ts';

import type { SessionStreams } from './session-streams.ts';

/**
 * What a replica does with an announcement; `origin` is true on the replica where the change
 * was made, false for one another replica relayed.
 */
export type AnnouncementHandler = (a: Announcement, origin: boolean) => void | Promise<void>;

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
    const done = this.#fanOut(announcement, true);
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
    void this.#fanOut(readAnnouncement(announcement), false);
  }

  #fanOut(announcement: Announcement, origin: boolean): Promise<void> {
    const running: Promise<void>[] = [];
    for (const handler of this.#handlers) {
      const out = handler(announcement, origin);
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

export interface FanOutDeps {
  readonly sessionStreams: SessionStreams;
  readonly listenStreams: ListenStreams;
  /** Where a session's resource subscriptions are found when no connection here owns it. */
  readonly sessions: Pick<SessionStore, 'get'>;
  readonly registry: Registry;
  /** Who sees what (src/registry/visibility.ts). */
  readonly visible: Visibility;
}

export interface FanOut {
  /** What this replica does with an announcement: `Announcements.onAnnounce` takes it. */
  readonly handle: AnnouncementHandler;
  /**
   * Tells this replica's streams of a list change (also used directly during registration);
   * with a session feed and `origin`, every open feed too.
   */
  listChanged(change: ListChange, origin?: boolean): Promise<void>;
  /** Tells this replica's subscribed sessions and listen streams that a resource changed (and, at the origin, every open feed subscribed to it). */
  resourceUpdated(uri: string, origin?: boolean): Promise<void>;
}

/** One replica's fan-out of announcements to its own sessions and listen streams. */
export function createFanOut(deps: FanOutDeps): FanOut {
  const { sessionStreams, listenStreams, sessions, registry, visible } = deps;
  const resourceUpdated = async (uri: string, origin = true) => {
    const message = notification('notifications/resources/updated', { uri });
    const local = sessionStreams.ids();
    for (const id of local) {
      const session = sessionStreams.localSession(id) ?? (await sessions.get(id).catch(() => undefined));
      if (session?.subscriptions.has(uri)) sessionStreams.sendLocal(id, message);
    }
    // Across replicas the replica where the change is made tells every subscribed session's
    // feed, so a session whose stream's replica stopped still gets it when it resumes.
    const feed = sessionStreams.feed;
    if (feed && origin) {
      const open = await feed.sessions().catch(() => []);
      await Promise.all(
        open
          .filter(({ sessionId }) => !local.includes(sessionId))
          .map(async ({ sessionId }) => {
            const session = await sessions.get(sessionId).catch(() => undefined);
            if (session?.subscriptions.has(uri)) feed.push(sessionId, message);
          }),
      );
    }
    // A listen stream names its URIs up front: one its caller may not see is never told.
    const target = registry.resolveResource(uri);
    listenStreams.publish(
      'notifications/resources/updated',
      (f, identity) =>
        (f.resourceSubscriptions?.includes(uri) ?? false) &&
        (target === undefined || visible(target.def.spec, identity)),
      { uri },
    );
  };
  // With visibility by caller, a list change goes only to the streams of callers who could
  // see a touched item before or can see it now (list-change.ts): one check per touched
  // item and stream, never a listing. Without auth every stream has no identity: all are told.
  const listChanged = (change: ListChange, origin = true) => {
    const method = `notifications/${change.kind}/list_changed`;
    const told = (identity: Identity | undefined) => concerns(change, identity, visible, registry);
    const feeds = sessionStreams.broadcast(notification(method), told, origin).catch(() => {});
    const key = `${change.kind}ListChanged` as
      | 'toolsListChanged'
      | 'promptsListChanged'
      | 'resourcesListChanged';
    listenStreams.publish(method, (f, identity) => f[key] === true && told(identity));
    return feeds;
  };
  return {
    handle: (a, origin) =>
      a.type === 'list_changed' ? listChanged(a, origin) : resourceUpdated(a.uri, origin),
    listChanged,
    resourceUpdated,
  };
}
