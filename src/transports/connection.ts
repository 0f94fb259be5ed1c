/**
 * A message-stream connection (stdio, or TestClient in-process): one client, one 2025-wire
 * session for the connection's life, messages handled concurrently so that cancellations
 * and answers to server-to-client requests get through while a call is running.
 * 2026-wire messages on the same stream are classified one by one and need no session.
 */

import type { JsonRpcMessage } from '../base/jsonrpc.ts';
import type { Identity } from '../base/types.ts';
import { ClientPresence } from '../protocol/exchange.ts';
import type { OutboundChannel } from '../protocol/hub/channel.ts';
import { newSession } from '../protocol/session/store.ts';
import type { ConnectionDeps } from './deps.ts';

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
  server: ConnectionDeps,
  send: (message: JsonRpcMessage | JsonRpcMessage[]) => void,
  options: { identity?: Identity; transport?: 'stdio' | 'http' } = {},
): Connection {
  const session = newSession();
  const presence = new ClientPresence();
  const channel: OutboundChannel = { send: (m) => send(m) };
  const detach = server.hub.sessionStreams.attach(session.id, channel, {
    session,
    identity: options.identity,
  });
  // Messages received and not yet answered, and who waits for that count to reach 0: a
  // counter, not a Set of promises, as every message passes here.
  let pending = 0;
  let drained: (() => void)[] = [];
  const settle = () => {
    if (--pending > 0 || drained.length === 0) return;
    const waiting = drained;
    drained = [];
    for (const resolve of waiting) resolve();
  };
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
      pending++;
      // Never rejects: whatever fails here is logged and the connection serves on (one
      // `then` with both callbacks: this runs for every message).
      const failed = (err: unknown) => server.logger.error({ err }, 'message handling failed');
      return server.dispatcher.handle(value, exchange).then(
        (reply) => {
          try {
            if (reply.body !== undefined && !presence.gone) send(reply.body);
          } catch (err) {
            failed(err);
          } finally {
            settle();
          }
        },
        (err: unknown) => {
          settle();
          failed(err);
        },
      );
    },
    clientGone() {
      server.hub.clientRequests.failPending(session.id, 'the client closed the connection');
    },
    drain() {
      if (pending === 0) return Promise.resolve();
      return new Promise<void>((resolve) => drained.push(resolve));
    },
    close() {
      presence.leave();
      detach();
      server.sessionEnded(session.id);
    },
  };
}
