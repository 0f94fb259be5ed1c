/**
 * A message-stream connection (stdio, or TestClient in-process): one client, one 2025-wire
 * session for the connection's life, messages handled concurrently so that cancellations
 * and answers to server-to-client requests get through while a call is running.
 * 2026-wire messages on the same stream are classified one by one and need no session.
 */

import { ClientPresence } from '../protocol/exchange.ts';
import type { OutboundChannel } from '../protocol/hub.ts';
import type { JsonRpcMessage } from '../protocol/jsonrpc.ts';
import { newSession } from '../protocol/session.ts';
import type { Identity } from '../registry/types.ts';
import type { McpServer } from '../server.ts';

export interface Connection {
  /** Handles one parsed message or batch; replies go to `send`. */
  receive(value: unknown): Promise<void>;
  /** Resolves when every message received so far has been answered. */
  drain(): Promise<void>;
  /** The client can send nothing more (stdin ended): requests waiting for its answers fail now. */
  clientGone(): void;
  close(): void;
  readonly sessionId: string;
}

export function createConnection(
  server: McpServer,
  send: (message: JsonRpcMessage | JsonRpcMessage[]) => void,
  options: { identity?: Identity; transport?: 'stdio' | 'http' } = {},
): Connection {
  const session = newSession();
  const presence = new ClientPresence();
  const channel: OutboundChannel = { send: (m) => send(m) };
  const detach = server.hub.attachSession(session.id, channel, session);
  const pending = new Set<Promise<void>>();
  const exchange = {
    transport: options.transport ?? ('stdio' as const),
    session,
    channel,
    identity: options.identity,
    presence,
  };

  return {
    sessionId: session.id,
    receive(value) {
      const p: Promise<void> = server.dispatcher.handle(value, exchange).then(
        (reply) => {
          pending.delete(p);
          if (reply.body !== undefined && !presence.gone) send(reply.body);
        },
        (err: unknown) => {
          pending.delete(p);
          server.logger.error({ err }, 'message handling failed');
        },
      );
      pending.add(p);
      return p;
    },
    clientGone() {
      server.hub.failPending(session.id, 'the client closed the connection');
    },
    async drain() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    close() {
      presence.leave();
      detach();
    },
  };
}
