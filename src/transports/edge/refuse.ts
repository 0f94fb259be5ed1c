/**
 * The one way the HTTP edge refuses a request, whichever host received it: `refuse()` sends the
 * refusal (a ProtocolError from src/base/refusals.ts, or the auth layer's) as a JSON-RPC error
 * body with its HTTP status and headers, and records it: a span in the caller's trace, a count
 * and a log line. Every refusal passes here (Host and Origin, body size and type, Accept,
 * sessions, auth, rate limit, not found, shutdown); the dispatcher's own refusals (a tool's
 * scope or limit) already have their MCP span and are only counted, when they are sent.
 */
import type { ProtocolError } from '../../base/errors.ts';
import { errorResponse, isId, isObject, type RequestId } from '../../base/jsonrpc.ts';
import type { EdgeHost, EdgeRequest } from './host.ts';
import { type RefusalDeps, recordRefusal } from './rules.ts';

/** The content type of every JSON-RPC answer, charset included: every host sends the same bytes. */
export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json; charset=utf-8',
});

/** The id a refusal echoes by default: the body's, once it is read and has one. */
export function bodyId(req: EdgeRequest): RequestId | null {
  const body = req.body;
  return isObject(body) && isId(body.id) ? body.id : null;
}

/** Records a refusal of `req` (span, count, log line) with `status` and what is known of the error. */
export function recordEdgeRefusal(
  deps: RefusalDeps,
  host: EdgeHost,
  req: EdgeRequest,
  res: unknown,
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
      port: host.port(req),
      httpVersion: host.httpVersion(req),
      identity: req.mcpIdentity,
      elapsedMs: host.elapsedMs(req, res),
    },
    status,
    error,
  );
  req.mcpRefusalRecorded = true;
}

/**
 * Sends `err` as a JSON-RPC error with its status and headers, and records it. `id` is the
 * request id to echo (only a request's: an error about a posted response or notification has
 * none); by default the body's, once it has been read.
 *
 * Returns `res`, for a handler to return.
 *
 * @example
 * return refuse(state, req, res, Refusal.sessionNotFound(), firstId);
 */
export function refuse(
  state: { readonly deps: RefusalDeps; readonly host: EdgeHost },
  req: EdgeRequest,
  res: unknown,
  err: ProtocolError,
  id: unknown = bodyId(req),
): unknown {
  const status = err.httpStatus ?? 400;
  try {
    recordEdgeRefusal(state.deps, state.host, req, res, status, err);
  } catch (error) {
    state.deps.logger.error({ err: error }, 'recording a refusal failed');
  }
  const echoed = isId(id) ? id : null;
  const headers = err.httpHeaders ? { ...err.httpHeaders, ...JSON_HEADERS } : JSON_HEADERS;
  state.host.send(res, status, headers, JSON.stringify(errorResponse(echoed, err)));
  return res;
}
