/**
 * The hub's relay over Redis pub/sub: what one replica's hub cannot hand to a local party
 * (a client's answer to a server-to-client request that another replica sent, a message for
 * a session whose standalone stream is elsewhere, a list change or resource update, a
 * cancellation of a request running elsewhere) goes to
 * every replica on one channel, and each replica's hub takes what concerns it. Each message
 * names the replica it came from, so a replica ignores its own.
 *
 * At most once: a message published while Redis is away, or while a replica is
 * reconnecting, is lost (docs/deployment.md, "Scaling out" lists what that means). What
 * arrives is checked against the shape of a relayed event before the hub sees it: a message
 * that is not one (a replica of another version, anything else publishing on the channel) is
 * dropped with a warning.
 */

import { z } from 'zod';
import { type IdPath, MESSAGE_IDS, parseKeepingIds } from '../base/json-ids.ts';
import {
  classify,
  isId,
  type JsonRpcMessage,
  type JsonRpcResponse,
  type RequestId,
} from '../base/jsonrpc.ts';
import type { Hub } from '../protocol/hub/hub.ts';
import type { HubRelay, RelayedEvent } from '../protocol/hub/relay.ts';
import type { PubSub } from '../redis/pubsub.ts';

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
  /** Told of each relayed message dropped as malformed (a pino logger fits); absent: dropped silently. */
  logger?: { warn(obj: object, msg: string): void };
}

export interface RedisHubRelay extends HubRelay {
  /** Feeds the other replicas' events to `hub`; resolves once subscribed; returns stop. */
  listen(hub: Hub): Promise<() => void>;
}

/**
 * What a replica publishes: `{ from, event }`, the event one of the hub's RelayedEvents. The
 * messages it carries are JSON-RPC envelopes (classify, as for a message from a client); a list
 * change's touched items are checked where the hub reads them (src/protocol/hub/announcements.ts, readAnnouncement).
 */
const RelayedEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('response'),
    scope: z.string(),
    response: z.custom<JsonRpcResponse>((v) => classify(v).kind === 'response', 'a JSON-RPC response'),
  }),
  z.object({
    type: z.literal('session'),
    sessionId: z.string(),
    message: z.custom<JsonRpcMessage>((v) => classify(v).kind !== 'invalid', 'a JSON-RPC message'),
  }),
  z.object({
    type: z.literal('announce'),
    announcement: z.discriminatedUnion('type', [
      z.object({
        type: z.literal('list_changed'),
        kind: z.enum(['tools', 'resources', 'prompts']),
        items: z.unknown().optional(),
      }),
      z.object({ type: z.literal('resource_updated'), uri: z.string() }),
    ]),
  }),
  z.object({
    type: z.literal('cancel'),
    scope: z.string(),
    requestId: z.custom<RequestId>(isId, 'a request id'),
  }),
]);
const RelayedSchema = z.object({ from: z.string(), event: z.unknown() });

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
      const drop = (problem: string, from?: string) =>
        options.logger?.warn({ channel, from, problem }, 'relayed hub message dropped: malformed');
      return pubsub.subscribe(channel, (payload) => {
        let parsed: unknown;
        try {
          parsed = parseKeepingIds(payload, RELAYED_IDS);
        } catch {
          drop('not JSON');
          return;
        }
        const relayed = RelayedSchema.safeParse(parsed);
        if (!relayed.success) {
          drop(describeIssues(relayed.error));
          return;
        }
        const { from } = relayed.data;
        if (from === replicaId) return;
        const event = RelayedEventSchema.safeParse(relayed.data.event);
        if (!event.success) {
          drop(describeIssues(event.error), from);
          return;
        }
        hub.receive(event.data as RelayedEvent);
      });
    },
  };
}

/** Where a message is not a relayed event, and why (paths and messages, never the values: they may be a client's data). */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}
