/**
 * The HTTP edge in front of the MCP routes: the caller is authenticated (API key or OAuth
 * bearer token) before the body is read, and charged against its token bucket once the body
 * says how many requests it holds (a batch costs one token per request, all or nothing).
 * Refusals answer with a JSON-RPC error body, the right status and headers; each one (here,
 * or a foreign Host or Origin, a body too large or of the wrong type) gets a span in the
 * caller's trace, a count and a log line.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, ProtocolError } from '../../base/errors.ts';
import { errorResponse, isObject } from '../../base/jsonrpc.ts';
import { Refusal } from '../../base/refusals.ts';
import type { Identity } from '../../base/types.ts';
import { rateLimitError } from '../../ratelimit/errors.ts';
import { clientKey } from '../../ratelimit/limiter.ts';
import { requestLogLine } from '../../telemetry/logger.ts';
import type { HttpDeps } from '../deps.ts';

declare module 'fastify' {
  interface FastifyRequest {
    mcpIdentity: Identity | undefined;
    /** The request reached the dispatcher (its refusals, a tool's scope or limit, have an MCP span). */
    mcpDispatched: boolean;
    /** `refuse()` recorded this refusal already (span, count, log line). */
    mcpRefusalRecorded?: boolean;
  }
}

/** `error.type` of a refusal by HTTP status (refusals the edge makes before dispatching). */
const REASONS: Readonly<Record<number, string>> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'unavailable',
};

/** A 403 for a foreign Host or Origin says so in `error.type`. */
const REASON_BY_CODE: Readonly<Record<number, string>> = {
  [ErrorCode.HostNotAllowed]: 'host_not_allowed',
  [ErrorCode.OriginNotAllowed]: 'origin_not_allowed',
};

/** Statuses the dispatcher answers that still count as refusals (a tool's scope, a tool's limit). */
const DISPATCHED_REFUSALS = new Set([401, 403, 429]);

/** The JSON-RPC error in a refusal's body. */
function errorOf(payload: unknown): { code?: number; message?: string } {
  if (typeof payload !== 'string') return {};
  try {
    const error = (JSON.parse(payload) as { error?: { code?: unknown; message?: unknown } }).error;
    return {
      code: typeof error?.code === 'number' ? error.code : undefined,
      message: typeof error?.message === 'string' ? error.message : undefined,
    };
  } catch {
    return {};
  }
}

/** Records a refusal the edge sends: its span (in the caller's trace), count and log line. */
function recordEdgeRefusal(
  server: HttpDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  status: number,
  error: { code?: number | undefined; message?: string | undefined },
): void {
  const reason =
    (error.code !== undefined ? REASON_BY_CODE[error.code] : undefined) ?? REASONS[status] ?? 'refused';
  const body = req.body;
  const trace = server.telemetry.recordRefusal({
    httpMethod: req.method,
    status,
    reason,
    message: error.message ?? `HTTP ${status}`,
    method: isObject(body) && typeof body.method === 'string' ? body.method : undefined,
    headers: req.headers,
    address: req.ip,
    port: req.socket.remotePort,
    httpVersion: req.raw.httpVersion,
    clientId: req.mcpIdentity?.clientId,
    startTime: Date.now() - reply.elapsedTime,
  });
  requestLogLine(server.logger, {
    method: `HTTP ${req.method}`,
    outcome: 'refused',
    durationMs: reply.elapsedTime,
    trace,
    clientId: req.mcpIdentity?.clientId,
  });
}

/** The onSend side: refusals sent with `sendError` (Host, Origin, 413, 415) and the dispatcher's. */
function recordSentRefusal(
  server: HttpDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): void {
  const status = reply.statusCode;
  if (req.mcpRefusalRecorded) return;
  if (req.mcpDispatched) {
    // Traced by the dispatcher already; counted here with the edge's refusals.
    if (DISPATCHED_REFUSALS.has(status)) {
      server.telemetry.countRefusal(status, status === 429 ? 'rate_limited' : (REASONS[status] ?? 'refused'));
    }
    return;
  }
  if (REASONS[status] === undefined) return;
  recordEdgeRefusal(server, req, reply, status, errorOf(payload));
}

/** Sends a refusal as a JSON-RPC error with its status and headers, and records it. */
export function refuse(
  server: HttpDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  err: ProtocolError,
): FastifyReply {
  const status = err.httpStatus ?? 400;
  try {
    recordEdgeRefusal(server, req, reply, status, err);
    req.mcpRefusalRecorded = true;
  } catch (error) {
    server.logger.error({ err: error }, 'recording a refusal failed');
  }
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

export function installEdge(app: FastifyInstance, server: HttpDeps): void {
  app.decorateRequest('mcpIdentity', undefined);
  app.decorateRequest('mcpDispatched', false);
  // Every refusal of this scope passes here when it is sent, whoever refused it (the Host and
  // Origin checks, the body limit and type, auth, the rate limit).
  app.addHook('onSend', (req, reply, payload, done) => {
    if (reply.statusCode >= 400) {
      try {
        recordSentRefusal(server, req, reply, payload);
      } catch (err) {
        server.logger.error({ err }, 'recording a refusal failed');
      }
    }
    done(null, payload);
  });
  const { auth, limiter } = server;
  // Callback-style hooks: an async hook costs Fastify a promise of its own and its settling
  // on every request, on top of the check's. Whatever throws after the check is logged, never
  // left as an unhandled rejection (which would end the process).
  const hookFailed = (err: unknown) => server.logger.error({ err }, 'HTTP edge hook failed');
  if (auth) {
    const unavailable = (err: unknown) => {
      server.logger.error({ err }, 'authentication failed unexpectedly');
      return Refusal.authUnavailable();
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
