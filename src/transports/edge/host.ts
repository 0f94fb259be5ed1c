/**
 * What the HTTP edge (this folder: the MCP endpoint's pipeline, framework-free) needs of the
 * host that received a request, Fastify (src/transports/http/) or a fetch runtime
 * (src/transports/fetch/): the request as plain facts, and a few ways to answer. Each host
 * implements `EdgeHost` once, as a constant; nothing here is allocated per request.
 */
import type { Headers, Identity } from '../../base/types.ts';

/**
 * One HTTP request as the edge sees it. A FastifyRequest (with the edge's decorations) is one
 * as it is, so the Fastify host adds no object per request; the fetch host builds one.
 */
export interface EdgeRequest {
  readonly method: string;
  /** The path and query as received. */
  readonly url: string;
  /** Lower-case names, as Node delivers them. */
  readonly headers: Headers;
  /** The client's address (from X-Forwarded-For behind trusted proxies); undefined: not known. */
  readonly ip: string | undefined;
  /** The parsed body, once read (GET and DELETE have none). */
  body: unknown;
  /** Who the caller is, once authenticated (undefined: no auth, or not yet). */
  mcpIdentity: Identity | undefined;
  /** The request reached the dispatcher (its refusals, a tool's scope or limit, have an MCP span). */
  mcpDispatched: boolean;
  /** A refusal was recorded already (span, count, log line). */
  mcpRefusalRecorded?: boolean;
}

/** Where an event stream's bytes go; its status (200) and headers are sent already. */
export interface StreamSink {
  write(text: string): void;
  /** Ends the stream (the connection, for a Node response). */
  end(): void;
  /** Runs `listener` once the stream closes, ended by either side. */
  onClose(listener: () => void): void;
}

/** The host's side of the edge: how it answers, for its own request and response objects. */
export interface EdgeHost<Req extends EdgeRequest = EdgeRequest, Res = unknown> {
  /** The client's address, as `req.ip` gives it (behind trusted proxies, X-Forwarded-For's). */
  address(req: Req): string | undefined;
  /** The client's port (spans' `client.port`); undefined: not known. */
  port(req: Req): number | undefined;
  /** The request's HTTP version (`1.1`, `2`); undefined: not known. */
  httpVersion(req: Req): string | undefined;
  /** How long ago the request arrived, in ms. */
  elapsedMs(req: Req, res: Res): number;
  /** Sends a whole answer; `body` undefined: none. */
  send(
    res: Res,
    status: number,
    headers: Readonly<Record<string, string>> | undefined,
    body: string | Uint8Array | undefined,
  ): void;
  /** Answers 200 with an event stream: `headers` now, then what is written to the sink. */
  stream(res: Res, headers: Readonly<Record<string, string>>): StreamSink;
  /**
   * Tells `gone` once the client's connection closes before the answer was finished, until
   * `offGone` (once the answer is made: what follows only sends it).
   */
  onGone(res: Res, gone: Gone): void;
  offGone(res: Res, gone: Gone): void;
}

/** What `EdgeHost.onGone` tells (an object, so that a request makes no closure for it). */
export interface Gone {
  clientGone(): void;
}
