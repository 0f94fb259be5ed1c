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

/**
 * Each connection's client port, read from the socket once: Node's `remotePort` getter costs
 * several hundred instructions on every read (docs/performance.md), and a kept-alive
 * connection carries many requests.
 */
const ports = new WeakMap<Socket, number | undefined>();

function peerPort(socket: Socket | null | undefined): number | undefined {
  if (!socket) return undefined;
  let port = ports.get(socket);
  if (port === undefined) {
    port = socket.remotePort;
    // Not known yet (or any more): asked again next time.
    if (port !== undefined) ports.set(socket, port);
  }
  return port;
}

/** `connection: keep-alive` is Node's to send (a fetch Response leaves hop-by-hop headers to its runtime). */
const NODE_SSE_HEADERS = { ...SSE_HEADERS, connection: 'keep-alive' };

/**
 * @example
 * const host = fastifyHost(streams); // one per mounted endpoint
 */
export function fastifyHost(streams: Set<ServerResponse>): EdgeHost<FastifyRequest, FastifyReply> {
  return {
    port: (req) => peerPort(req.raw.socket),
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
    onGone(reply, listener) {
      const raw = reply.raw;
      raw.on('close', () => {
        if (!raw.writableFinished) listener();
      });
    },
  };
}
