/**
 * The fetch handler's options, named for what they do, derived from the HTTP transport's
 * options (which src/transport-options.ts builds from the settings): a caller overrides any
 * of them in `createFetchHandler`.
 */
import { type HostGuardOptions, hostGuardOptions } from '../edge/guards.ts';
import type { HttpOptions } from '../http/options.ts';

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
 * const options = { ...fetchHandlerOptions(httpOptions(settings)), path: '/api/mcp' };
 */
export function fetchHandlerOptions(http: HttpOptions): FetchHandlerOptions {
  return {
    ...hostGuardOptions(http),
    path: http.path,
    maxBodyBytes: http.limits.maxBodyBytes,
    sseKeepAliveMs: http.sse.keepAliveMs,
    trustProxy: http.trustProxy !== false,
  };
}
