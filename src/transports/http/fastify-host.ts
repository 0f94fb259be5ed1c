/**
 * The HTTP edge's host on Fastify (src/transports/edge/host.ts): a FastifyRequest is the edge's
 * request as it is, and answers go through the FastifyReply, or, for an event stream, the
 * Node response taken over from Fastify (hijacked) and held in `streams` until it closes, for
 * a drain to end.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EdgeHost, StreamSink } from '../edge/host.ts';
import { SSE_HEADERS } from '../edge/sse.ts';

/** A Node response as an event stream's sink. */
class NodeSink implements StreamSink {
  readonly #raw: ServerResponse;
  constructor(raw: ServerResponse) {
    this.#raw = raw;
  }
  write(text: string): void {
    this.#raw.write(text);
  }
  end(): void {
    this.#raw.end();
  }
  onClose(listener: () => void): void {
    this.#raw.on('close', listener);
  }
}

/** A connection's client address and port, as its socket gives them. */
interface Peer {
  readonly address: string | undefined;
  readonly port: number | undefined;
}

/**
 * Each connection's peer, read from its socket once: Node's `remoteAddress` and `remotePort`
 * getters cost several hundred instructions on every read (docs/performance.md), and a
 * kept-alive connection carries many requests.
 */
const peers = new WeakMap<Socket, Peer>();

function peerOf(socket: Socket | null | undefined): Peer | undefined {
  if (!socket) return undefined;
  let peer = peers.get(socket);
  if (peer === undefined) {
    peer = { address: socket.remoteAddress, port: socket.remotePort };
    // Not known yet (or any more): asked again next time.
    if (peer.port !== undefined) peers.set(socket, peer);
  }
  return peer;
}

/** `connection: keep-alive` is Node's to send (a fetch Response leaves hop-by-hop headers to its runtime). */
const NODE_SSE_HEADERS = { ...SSE_HEADERS, connection: 'keep-alive' };

export interface FastifyHostOptions {
  /**
   * The app trusts no proxy (Fastify's `trustProxy` off), so a request's `ip` is its socket's
   * address, which is then read once per connection. Default false: `req.ip` on every request.
   */
  socketAddress?: boolean | undefined;
}

/**
 * @example
 * const host = fastifyHost(streams); // one per mounted endpoint
 */
export function fastifyHost(
  streams: Set<ServerResponse>,
  options: FastifyHostOptions = {},
): EdgeHost<FastifyRequest, FastifyReply> {
  const socketAddress = options.socketAddress === true;
  return {
    // `req.ip` is the socket's address unless the app trusts proxies (Fastify's `trustProxy`).
    address: socketAddress ? (req) => peerOf(req.raw.socket)?.address : (req) => req.ip,
    port: (req) => peerOf(req.raw.socket)?.port,
    httpVersion: (req) => req.raw.httpVersion,
    elapsedMs: (_req, reply) => reply.elapsedTime,
    send(reply, status, headers, body) {
      reply.code(status);
      if (headers) reply.headers(headers);
      if (body === undefined) reply.send();
      else reply.send(body);
    },
    stream(reply, headers) {
      reply.hijack();
      const raw = reply.raw;
      streams.add(raw);
      raw.on('close', () => streams.delete(raw));
      raw.writeHead(200, { ...NODE_SSE_HEADERS, ...headers });
      raw.flushHeaders();
      return new NodeSink(raw);
    },
    onGone(reply, gone) {
      const raw = reply.raw;
      raw.on('close', () => {
        if (!raw.writableFinished) gone.clientGone();
      });
    },
    // The listener dies with its response: nothing to take back.
    offGone() {},
  };
}
