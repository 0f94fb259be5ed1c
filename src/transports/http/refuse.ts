/**
 * The one way the HTTP transport refuses a request: `refuse()` sends the refusal (a ProtocolError
 * from src/base/refusals.ts, or the auth layer's) as a JSON-RPC error body with its HTTP status
 * and headers, and records it: a span in the caller's trace, a count and a log line. Every
 * refusal passes here (Host and Origin, body size and type, Accept, sessions, auth, rate limit,
 * not found, shutdown); the dispatcher's own refusals (a tool's scope or limit) already have
 * their MCP span and are only counted, when they are sent.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProtocolError } from '../../base/errors.ts';
import { errorResponse, isId, isObject, type RequestId } from '../../base/jsonrpc.ts';
import type { Identity } from '../../base/types.ts';
import { isDispatchedRefusal, type RefusalDeps, recordRefusal, statusReason } from './rules.ts';

declare module 'fastify' {
  interface FastifyRequest {
    mcpIdentity: Identity | undefined;
    /** The request reached the dispatcher (its refusals, a tool's scope or limit, have an MCP span). */
    mcpDispatched: boolean;
    /** `refuse()` recorded this refusal already (span, count, log line). */
    mcpRefusalRecorded?: boolean;
  }
}

export type { RefusalDeps } from './rules.ts';

/** The id a refusal echoes by default: the body's, once it is read and has one. */
function bodyId(req: FastifyRequest): RequestId | null {
  const body = req.body;
  return isObject(body) && isId(body.id) ? body.id : null;
}

/** A refusal's span (in the caller's trace), count and log line. */
function record(
  deps: RefusalDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  status: number,
  error: { code?: number | undefined; message?: string | undefined },
): void {
  recordRefusal(
    deps,
    {
      httpMethod: req.method,
      body: req.body,
      headers: req.headers,
      address: req.ip,
      port: req.socket.remotePort,
      httpVersion: req.raw.httpVersion,
      identity: req.mcpIdentity,
      elapsedMs: reply.elapsedTime,
    },
    status,
    error,
  );
}

/**
 * Sends `err` as a JSON-RPC error with its status and headers, and records it. `id` is the
 * request id to echo (only a request's: an error about a posted response or notification has
 * none); by default the body's, once it has been read.
 *
 * @example
 * return refuse(deps, req, reply, Refusal.sessionNotFound(), firstId);
 */
export function refuse(
  deps: RefusalDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  err: ProtocolError,
  id: unknown = bodyId(req),
): FastifyReply {
  const status = err.httpStatus ?? 400;
  try {
    record(deps, req, reply, status, err);
    req.mcpRefusalRecorded = true;
  } catch (error) {
    deps.logger.error({ err: error }, 'recording a refusal failed');
  }
  const echoed = isId(id) ? id : null;
  for (const [k, v] of Object.entries(err.httpHeaders ?? {})) reply.header(k, v);
  return reply
    .code(status)
    .header('content-type', 'application/json')
    .send(JSON.stringify(errorResponse(echoed, err)));
}

/** The JSON-RPC error in a body sent some other way. */
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

/**
 * Counts the dispatcher's refusals as they are sent (their span is the request's own), and
 * records any error answer of this scope that did not come through `refuse()`, so none goes
 * unseen.
 */
export function installRefusalRecording(app: FastifyInstance, deps: RefusalDeps): void {
  app.addHook('onSend', (req, reply, payload, done) => {
    const status = reply.statusCode;
    if (status >= 400 && !req.mcpRefusalRecorded) {
      try {
        if (req.mcpDispatched) {
          if (isDispatchedRefusal(status))
            deps.telemetry.countRefusal(status, statusReason(status) ?? 'refused');
        } else if (statusReason(status) !== undefined) {
          record(deps, req, reply, status, errorOf(payload));
        }
      } catch (err) {
        deps.logger.error({ err }, 'recording a refusal failed');
      }
    }
    done(null, payload);
  });
}
