/** The open 2026 `subscriptions/listen` streams of this replica, each with its filter. */

import type { JsonObject, RequestId } from '../../base/jsonrpc.ts';
import type { Identity } from '../../base/types.ts';
import type { OutboundChannel } from './channel.ts';

export type ListenFilter = {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks whose `notifications/tasks` the stream wants (SEP-2663), the caller's own only. */
  taskIds?: string[];
};

interface Listener {
  filter: ListenFilter;
  subscriptionId: RequestId;
  channel: OutboundChannel;
  identity: Identity | undefined;
  /** Who holds it, for the per-caller cap (MCP_MAX_LISTEN_STREAMS). */
  caller: string | undefined;
}

export class ListenStreams {
  readonly #listeners = new Set<Listener>();

  /** Registers a 2026 listen stream, opened by `identity`; returns detach. */
  add(
    filter: ListenFilter,
    subscriptionId: RequestId,
    channel: OutboundChannel,
    identity?: Identity,
    caller?: string,
  ): () => void {
    const listener: Listener = { filter, subscriptionId, channel, identity, caller };
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** How many listen streams `caller` holds on this replica. */
  of(caller: string): number {
    let n = 0;
    for (const l of this.#listeners) if (l.caller === caller) n++;
    return n;
  }

  get count(): number {
    return this.#listeners.size;
  }

  /**
   * Sends a notification to every listen stream whose filter (and, for messages meant for
   * some callers only, whose caller) `accepts`, tagged with its id.
   */
  publish(
    method: string,
    accepts: (filter: ListenFilter, identity: Identity | undefined) => boolean,
    params: JsonObject = {},
  ): void {
    for (const l of this.#listeners) {
      if (!accepts(l.filter, l.identity)) continue;
      const meta = {
        ...(params._meta as JsonObject | undefined),
        'io.modelcontextprotocol/subscriptionId': l.subscriptionId,
      };
      l.channel.send({ jsonrpc: '2.0', method, params: { ...params, _meta: meta } });
    }
  }
}
