/**
 * The fetch handler's options, named for what they do, derived from the HTTP transport's
 * options (which src/assembly/transport-options.ts builds from the settings): a caller overrides any
 * of them in `createFetchHandler`.
 */
import type { Identity } from '../../base/types.ts';
import { type HostGuardOptions, hostGuardOptions } from '../edge/guards.ts';
import type { EdgeOptions, SessionMode } from '../edge/options.ts';
import type { HttpOptions } from '../http/options.ts';

export interface FetchHandlerOptions extends HostGuardOptions {
  /** The MCP endpoint's path (`/mcp`): any other path is answered 404. */
  readonly path: string;
  /** Largest request body in bytes: a larger one is answered 413 before it is parsed. */
  readonly maxBodyBytes: number;
  /**
   * How 2025-wire sessions are kept: `stateful` in the server's session store (memory for one
   * process, Redis shared by many with MCP_REDIS_URL), with the GET stream, DELETE and
   * resumable streams; `stateless` where the host keeps nothing between requests (each
   * request served on its own; GET and DELETE 405).
   */
  readonly sessions: SessionMode;
  /** Open GET streams one 2025-wire session may hold through this handler. */
  readonly maxStreamsPerSession: number;
  /** Events kept per SSE stream for resumption by the in-memory event store (no MCP_REDIS_URL). */
  readonly eventRetention: number;
  /** Interval of the keep-alive comments on an SSE reply, in ms. */
  readonly sseKeepAliveMs: number;
  /** The `retry:` hint of a resumable SSE stream, in ms. */
  readonly sseRetryMs: number;
  /** How long a standalone GET stream whose connection dropped stays attached for a resume, in ms. */
  readonly sseStandaloneGraceMs: number;
  /**
   * Whether the request comes through a trusted proxy: when false, `ctx.http.headers` leaves
   * out the headers a proxy sets (Forwarded, X-Forwarded-*, X-Real-IP).
   */
  readonly trustProxy: boolean;
  /**
   * The host application's own word on who the caller is (its auth ran first): an identity
   * with its scopes, which our per-tool scopes, visibility, rate limits, logs and spans then
   * use; undefined leaves it to the server's authenticator (MCP_AUTH), else anonymous.
   */
  readonly identify?:
    | ((request: Request) => Identity | undefined | Promise<Identity | undefined>)
    | undefined;
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
    sessions: 'stateful',
    maxStreamsPerSession: http.limits.maxStreamsPerSession,
    eventRetention: http.limits.eventRetention,
    sseKeepAliveMs: http.sse.keepAliveMs,
    sseRetryMs: http.sse.retryMs,
    sseStandaloneGraceMs: http.sse.standaloneGraceMs,
    trustProxy: http.trustProxy !== false,
  };
}

/** The edge's options as the handler's say. */
export function edgeOptionsOf(o: FetchHandlerOptions): EdgeOptions {
  return {
    path: o.path,
    hosts: o,
    trustProxy: o.trustProxy,
    limits: { maxBodyBytes: o.maxBodyBytes, maxStreamsPerSession: o.maxStreamsPerSession },
    sse: { keepAliveMs: o.sseKeepAliveMs, retryMs: o.sseRetryMs, standaloneGraceMs: o.sseStandaloneGraceMs },
  };
}
