/**
 * The fetch handler's options, named for what they do, and the one place they are derived
 * from the server's settings: a caller overrides any of them in `createFetchHandler`.
 */
import type { Settings } from '../../config/settings.ts';
import { type HostGuardOptions, hostGuardOptions } from '../http/guards.ts';

export interface FetchHandlerOptions extends HostGuardOptions {
  /** The MCP endpoint's path (`/mcp`): any other path is answered 404. */
  readonly path: string;
  /** Largest request body in bytes: a larger one is answered 413 before it is parsed. */
  readonly maxBodyBytes: number;
  /** Interval of the keep-alive comments on an SSE reply, in ms. */
  readonly sseKeepAliveMs: number;
  /**
   * Whether the request comes through a trusted proxy: when false, `ctx.http.headers` leaves
   * out the headers a proxy sets (Forwarded, X-Forwarded-*, X-Real-IP).
   */
  readonly trustProxy: boolean;
}

/**
 * @example
 * const options = { ...fetchHandlerOptions(server.settings), path: '/api/mcp' };
 */
export function fetchHandlerOptions(settings: Settings): FetchHandlerOptions {
  return {
    ...hostGuardOptions(settings),
    path: settings.MCP_HTTP_PATH,
    maxBodyBytes: settings.MCP_MAX_BODY_BYTES,
    sseKeepAliveMs: settings.MCP_SSE_KEEPALIVE_MS,
    trustProxy: settings.MCP_TRUST_PROXY !== false,
  };
}
