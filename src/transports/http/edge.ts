/**
 * The HTTP edge in front of the MCP routes: the caller is authenticated (API key or OAuth
 * bearer token) before the body is read, and charged against its token bucket once the body
 * says how many requests it holds (a batch costs one token per request, all or nothing).
 * Refusals answer with a JSON-RPC error body, the right status and headers, and are counted.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, ProtocolError } from '../../protocol/errors.ts';
import { errorResponse, isObject } from '../../protocol/jsonrpc.ts';
import { rateLimitError } from '../../ratelimit/errors.ts';
import { clientKey } from '../../ratelimit/limiter.ts';
import type { Identity } from '../../registry/types.ts';
import type { McpServer } from '../../server.ts';
import { requestLogLine } from '../../telemetry/logger.ts';

declare module 'fastify' {
  interface FastifyRequest {
    mcpIdentity: Identity | undefined;
  }
}

const REASONS: Record<number, string> = {
  401: 'unauthorized',
  403: 'forbidden',
  429: 'rate_limited',
  503: 'unavailable',
};

/** Sends a refusal as a JSON-RPC error with its status and headers, and records it. */
export function refuse(
  server: McpServer,
  req: FastifyRequest,
  reply: FastifyReply,
  err: ProtocolError,
): FastifyReply {
  const status = err.httpStatus ?? 400;
  server.telemetry.recordRefusal(status, REASONS[status] ?? 'refused');
  requestLogLine(server.logger, {
    method: `HTTP ${req.method}`,
    outcome: 'refused',
    durationMs: 0,
    clientId: req.mcpIdentity?.clientId,
  });
  const body =
    isObject(req.body) && (typeof req.body.id === 'string' || typeof req.body.id === 'number')
      ? req.body.id
      : null;
  for (const [k, v] of Object.entries(err.httpHeaders ?? {})) reply.header(k, v);
  return reply
    .code(status)
    .header('content-type', 'application/json')
    .send(JSON.stringify(errorResponse(body, err)));
}

const isRequest = (m: unknown) => isObject(m) && typeof m.method === 'string' && 'id' in m;

/**
 * How many requests (things that cost a token) a body holds: notifications and posted
 * responses are free, alone or in a batch. A GET or DELETE (no body) costs one.
 */
function costOf(body: unknown): number {
  if (body === undefined || body === null) return 1;
  if (Array.isArray(body)) return body.filter(isRequest).length;
  return isRequest(body) ? 1 : 0;
}

export function installEdge(app: FastifyInstance, server: McpServer): void {
  app.decorateRequest('mcpIdentity', undefined);
  const { auth, limiter } = server;
  // Callback-style hooks: an async hook costs Fastify a promise of its own and its settling
  // on every request, on top of the check's. Whatever throws after the check is logged, never
  // left as an unhandled rejection (which would end the process).
  const hookFailed = (err: unknown) => server.logger.error({ err }, 'HTTP edge hook failed');
  if (auth) {
    const unavailable = (err: unknown) => {
      server.logger.error({ err }, 'authentication failed unexpectedly');
      return new ProtocolError(ErrorCode.ServiceUnavailable, 'Authentication is unavailable; retry shortly', {
        httpStatus: 503,
      });
    };
    app.addHook('onRequest', (req, reply, done) => {
      auth
        .authenticate({ headers: req.headers })
        .then(
          (identity) => {
            req.mcpIdentity = identity;
            done();
          },
          (err: unknown) => {
            // Answered here: `done` is not called, so the request goes no further.
            refuse(server, req, reply, err instanceof ProtocolError ? err : unavailable(err));
          },
        )
        .catch(hookFailed);
    });
  }
  if (limiter && limiter.burst > 0) {
    app.addHook('preHandler', (req, reply, done) => {
      const cost = costOf(req.body);
      if (cost === 0) return done();
      limiter
        .consume(clientKey(req.mcpIdentity, req.ip), cost)
        .then(
          (decision) => {
            if (decision.allowed) done();
            else refuse(server, req, reply, rateLimitError(decision));
          },
          (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
        )
        .catch(hookFailed);
    });
  }
}
