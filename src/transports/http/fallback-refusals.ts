/**
 * The refusals Fastify and Node's HTTP server would otherwise make on their own, with their
 * own JSON shapes: a request line or headers that cannot be parsed (400, 431 past Node's
 * 16 KB header limit), a request that took too long to arrive (408), a path that is not
 * ours (404), and requests that arrive while the server shuts down (503). MCP clients
 * expect a JSON-RPC error body everywhere, so each gets one, and is counted and logged like
 * the edge's own refusals.
 */
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ProtocolError } from '../../base/errors.ts';
import { encodeMessage, errorResponse } from '../../base/jsonrpc.ts';
import { Refusal } from '../../base/refusals.ts';
import { requestLogLine } from '../../telemetry/logger.ts';
import type { HttpDeps } from '../deps.ts';
import { refuse } from './refuse.ts';

/** Node's error codes to our refusal, the status line's reason phrase and `error.type`. */
const CLIENT_ERRORS: Record<string, { refusal: () => ProtocolError; phrase: string; reason: string }> = {
  HPE_HEADER_OVERFLOW: {
    refusal: Refusal.headersTooLarge,
    phrase: 'Request Header Fields Too Large',
    reason: 'headers_too_large',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    refusal: Refusal.requestTimeout,
    phrase: 'Request Timeout',
    reason: 'request_timeout',
  },
};

const BAD_REQUEST = { refusal: Refusal.badHttpRequest, phrase: 'Bad Request', reason: 'bad_request' };

/**
 * Fastify's `clientErrorHandler`: answers on the raw socket, since no request object exists
 * for a request Node could not parse.
 */
export function clientErrorHandler(
  server: HttpDeps,
): (err: Error & { code?: string }, socket: Socket) => void {
  return (err, socket) => {
    // A connection the client reset has nobody left to answer.
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const known = (err.code && CLIENT_ERRORS[err.code]) || BAD_REQUEST;
    const refusal = known.refusal();
    const status = refusal.httpStatus ?? 400;
    // No request could be parsed: the span has no method (HTTP semantic conventions: `_OTHER`).
    const trace = server.telemetry.recordRefusal({
      httpMethod: '_OTHER',
      status,
      reason: known.reason,
      message: refusal.message,
      address: socket.remoteAddress,
      port: socket.remotePort,
    });
    requestLogLine(server.logger, { method: 'HTTP' }, { outcome: 'refused', durationMs: 0, trace });
    const body = encodeMessage(errorResponse(null, refusal)) ?? '';
    socket.end(
      `HTTP/1.1 ${status} ${known.phrase}\r\n` +
        'content-type: application/json\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        'connection: close\r\n\r\n' +
        body,
    );
  };
}

/**
 * A JSON-RPC 404 for paths that are not ours, and a JSON-RPC 503 (with `Connection: close`)
 * for requests that arrive once shutdown has begun. Registered at the root, before anything
 * else, so the 503 also covers the probes (a load balancer then stops sending here).
 */
export function installFallbackRefusals(app: FastifyInstance, server: HttpDeps, mcpPath: string): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (req, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    refuse(server, req, reply, Refusal.shuttingDown());
  });
  app.setNotFoundHandler((req, reply) =>
    refuse(server, req, reply, Refusal.notFound(req.method, req.url.split('?')[0] ?? '', mcpPath)),
  );
}
