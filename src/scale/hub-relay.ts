/**
 * The hub's relay over Redis pub/sub: what one replica's hub cannot hand to a local party
 * (a client's answer to a server-to-client request that another replica sent, a message for
 * a session whose standalone stream is elsewhere, a list change or resource update, a
 * cancellation of a request running elsewhere) goes to
 * every replica on one channel, and each replica's hub takes what concerns it. Each message
 * names the replica it came from, so a replica ignores its own.
 *
 * At most once: a message published while Redis is away, or while a replica is
 * reconnecting, is lost (docs/deployment.md, "Scaling out" lists what that means).
 */

import { type IdPath, MESSAGE_IDS, parseKeepingIds } from '../base/json-ids.ts';
import { isObject } from '../base/jsonrpc.ts';
import type { Hub, HubRelay, RelayedEvent } from '../protocol/hub.ts';
import type { PubSub } from './pubsub.ts';

export interface HubRelayOptions {
  pubsub: PubSub;
  /** The channel every replica listens on, e.g. `mcp-toolkit:hub`. */
  channel: string;
  /** This replica's id (random per process). */
  replicaId: string;
  /** Called when a publish fails (Redis away); the event is dropped. */
  onPublishError?: (err: unknown, event: RelayedEvent) => void;
  /** Called after a publish succeeds. */
  onPublished?: () => void;
}

export interface RedisHubRelay extends HubRelay {
  /** Feeds the other replicas' events to `hub`; resolves once subscribed; returns stop. */
  listen(hub: Hub): Promise<() => void>;
}

const TYPES = new Set(['response', 'session', 'announce', 'cancel']);
/** Ids past Number.MAX_SAFE_INTEGER a relayed event carries, kept as sent. */
const RELAYED_IDS: readonly IdPath[] = [
  ['event', 'requestId'],
  ...MESSAGE_IDS.map((p) => ['event', 'message', ...p]),
  ...MESSAGE_IDS.map((p) => ['event', 'response', ...p]),
];

/**
 * @example
 * const relay = createHubRelay({ pubsub, channel: 'mcp-toolkit:hub', replicaId });
 * const hub = new Hub({ relay, requestIdPrefix: `s2c-${replicaId}-` });
 * await relay.listen(hub);
 */
export function createHubRelay(options: HubRelayOptions): RedisHubRelay {
  const { pubsub, channel, replicaId } = options;
  return {
    publish(event) {
      let payload: string;
      try {
        payload = JSON.stringify({ from: replicaId, event });
      } catch (err) {
        // A message JSON cannot carry (a BigInt, a cycle) is not relayed; it must not throw
        // into the sender, which may be running on behalf of another client.
        options.onPublishError?.(err, event);
        return;
      }
      pubsub.publish(channel, payload).then(
        () => options.onPublished?.(),
        (err: unknown) => options.onPublishError?.(err, event),
      );
    },
    listen(hub) {
      return pubsub.subscribe(channel, (payload) => {
        let parsed: unknown;
        try {
          parsed = parseKeepingIds(payload, RELAYED_IDS);
        } catch {
          return;
        }
        if (!isObject(parsed) || parsed.from === replicaId || !isObject(parsed.event)) return;
        if (!TYPES.has(String(parsed.event.type))) return;
        hub.receive(parsed.event as unknown as RelayedEvent);
      });
    },
  };
}
