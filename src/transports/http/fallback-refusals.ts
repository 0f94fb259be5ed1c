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
import { ErrorCode, ProtocolError } from '../../protocol/errors.ts';
import { encodeMessage, errorResponse } from '../../protocol/jsonrpc.ts';
import type { McpServer } from '../../server.ts';
import { requestLogLine } from '../../telemetry/logger.ts';
import { refuse } from './edge.ts';

const CLIENT_ERRORS: Record<string, { status: number; reason: string; code: number; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: ErrorCode.HeadersTooLarge,
    message: 'Request headers too large: at most 16 KB in all; send fewer or shorter headers',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    code: ErrorCode.RequestTimeout,
    message: 'Request timeout: the request did not arrive in time; send it again',
  },
};

const BAD_REQUEST = {
  status: 400,
  reason: 'Bad Request',
  code: ErrorCode.BadRequest,
  message: 'Bad request: the HTTP request could not be parsed',
};

/**
 * Fastify's `clientErrorHandler`: answers on the raw socket, since no request object exists
 * for a request Node could not parse.
 */
export function clientErrorHandler(
  server: McpServer,
): (err: Error & { code?: string }, socket: Socket) => void {
  return (err, socket) => {
    // A connection the client reset has nobody left to answer.
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const known = (err.code && CLIENT_ERRORS[err.code]) || BAD_REQUEST;
    // No request could be parsed: the span has no method (HTTP semantic conventions: `_OTHER`).
    const trace = server.telemetry.recordRefusal({
      httpMethod: '_OTHER',
      status: known.status,
      reason:
        known.status === 431 ? 'headers_too_large' : known.status === 408 ? 'request_timeout' : 'bad_request',
      message: known.message,
      address: socket.remoteAddress,
      port: socket.remotePort,
    });
    requestLogLine(server.logger, { method: 'HTTP', outcome: 'refused', durationMs: 0, trace });
    const body = encodeMessage(errorResponse(null, new ProtocolError(known.code, known.message))) ?? '';
    socket.end(
      `HTTP/1.1 ${known.status} ${known.reason}\r\n` +
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
export function installFallbackRefusals(app: FastifyInstance, server: McpServer, mcpPath: string): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (req, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    refuse(
      server,
      req,
      reply,
      new ProtocolError(
        ErrorCode.ServiceUnavailable,
        'Service unavailable: the server is shutting down; retry on another replica',
        {
          httpStatus: 503,
        },
      ),
    );
  });
  app.setNotFoundHandler((req, reply) =>
    refuse(
      server,
      req,
      reply,
      new ProtocolError(
        ErrorCode.NotFound,
        `Not found: ${req.method} ${req.url.split('?')[0]}; the MCP endpoint is ${mcpPath}`,
        {
          httpStatus: 404,
        },
      ),
    ),
  );
}
