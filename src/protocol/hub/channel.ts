/** How the hub and a request reach one client stream; each transport provides its own. */

import type { JsonRpcMessage } from '../../base/jsonrpc.ts';

/** A transport's way of sending messages to one client stream. */
export interface OutboundChannel {
  send(message: JsonRpcMessage): void;
  /**
   * Ends the client's connection while the request goes on (SSE polling, SEP-1699); the
   * client reconnects with Last-Event-ID. Absent where the transport cannot resume.
   */
  disconnect?(): Promise<void>;
}
