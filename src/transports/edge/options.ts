/**
 * What the HTTP edge is told, named for what each value does: the MCP endpoint's path, who may
 * reach it (the Host and Origin checks), whether a proxy's headers are believed, its limits and
 * its SSE timing. The Fastify transport derives them from its HTTP options (`edgeOptions`), the
 * fetch handler from its own.
 */

import type { HttpOptions } from '../http/options.ts';
import { type HostGuardOptions, hostGuardOptions } from './guards.ts';

/**
 * How the 2025 wire's sessions are kept. `stateful`: in the server's session store (memory, or
 * Redis shared by replicas), with `Mcp-Session-Id`, the GET stream, DELETE and resumable
 * streams. `stateless`: nothing is kept between requests (a host whose instances share no
 * memory and no store): `initialize` is answered without a session id, and each later request
 * is served on its own at the version its `MCP-Protocol-Version` header names, with no client
 * capabilities known (so no sampling, elicitation or roots); GET and DELETE are 405.
 */
export type SessionMode = 'stateful' | 'stateless';

export interface EdgeOptions {
  /** The MCP endpoint's path. */
  readonly path: string;
  /** The Host and Origin checks (DNS-rebinding protection). */
  readonly hosts: HostGuardOptions;
  /** Whether requests come through a trusted proxy (`ctx.http.headers` then shows its headers). */
  readonly trustProxy: boolean;
  readonly limits: {
    /** Largest request body in bytes (413 beyond, from Content-Length before the body is read). */
    readonly maxBodyBytes: number;
    /** Open GET (SSE) streams one 2025-wire session may hold here. */
    readonly maxStreamsPerSession: number;
  };
  /**
   * SSE keep-alive comment interval, the `retry:` sent on resumable streams, and how long a
   * standalone stream whose connection dropped stays attached for a resume, in ms.
   */
  readonly sse: {
    readonly keepAliveMs: number;
    readonly retryMs: number;
    readonly standaloneGraceMs: number;
  };
}

/** The edge as the HTTP transport's options say. */
export function edgeOptions(http: HttpOptions): EdgeOptions {
  return {
    path: http.path,
    hosts: hostGuardOptions(http),
    trustProxy: http.trustProxy !== false,
    limits: {
      maxBodyBytes: http.limits.maxBodyBytes,
      maxStreamsPerSession: http.limits.maxStreamsPerSession,
    },
    sse: http.sse,
  };
}
