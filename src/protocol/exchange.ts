/**
 * What passes between a transport and the dispatcher: the Exchange a transport describes a
 * message with, the Reply it gets back, and the observer hook that sees every request.
 */
import type { Identity } from '../registry/types.ts';
import type { ProtocolError } from './errors.ts';
import type { OutboundChannel } from './hub.ts';
import type { JsonObject, JsonRpcResponse } from './jsonrpc.ts';
import type { Session } from './session.ts';
import type { Headers } from './wire.ts';

/** What a transport tells the dispatcher about one inbound message or batch. */
export interface Exchange {
  readonly transport: 'stdio' | 'http';
  /** HTTP request headers, lower-case names (absent on stdio: header checks are HTTP's). */
  readonly headers?: Headers;
  /** The 2025-wire session (stdio: the connection's; HTTP: from Mcp-Session-Id). */
  readonly session?: Session;
  readonly identity?: Identity;
  /** Where notifications and server-to-client requests tied to a request go. */
  readonly channel?: OutboundChannel;
  /** Aborted when the client goes away (HTTP connection closed, stdin ended). */
  readonly signal?: AbortSignal;
  /** The client's network address (HTTP; from X-Forwarded-For behind trusted proxies). */
  readonly address?: string;
}

export interface Reply {
  /** Response(s); undefined for notifications, posted responses and all-notification batches. */
  body?: JsonRpcResponse | JsonRpcResponse[];
  /** HTTP status the rules require (400, 404, ...), when not 200. */
  status?: number;
  /** A session created by `initialize` (HTTP issues its id in Mcp-Session-Id). */
  session?: Session;
  /** HTTP headers the rules require (WWW-Authenticate on 403, Retry-After on 429). */
  headers?: Readonly<Record<string, string>>;
}

export interface RequestObserver {
  start(info: {
    method: string;
    target: string | undefined;
    requestId: string | number;
    wire: '2025' | '2026';
    protocolVersion: string;
    sessionId: string | undefined;
    identity: Identity | undefined;
    transport: 'stdio' | 'http';
    meta: JsonObject | undefined;
    /** The tool's arguments (tools/call), for MCP_LOG_TOOL_ARGS. */
    args?: unknown;
  }): (outcome: { error?: ProtocolError | Error; isError?: boolean }) => void;
}
