/** The JSON-RPC error answer of the HTTP transport (edge refusals, session and envelope errors). */
import type { FastifyReply } from 'fastify';
import type { ProtocolError } from '../../base/errors.ts';
import { errorResponse } from '../../base/jsonrpc.ts';

/** Sends a refusal (src/base/refusals.ts) as a JSON-RPC error body with its HTTP status and headers. */
export function sendError(reply: FastifyReply, err: ProtocolError, id: unknown = null) {
  const body = errorResponse(typeof id === 'string' || typeof id === 'number' ? id : null, err);
  for (const [k, v] of Object.entries(err.httpHeaders ?? {})) reply.header(k, v);
  return reply
    .code(err.httpStatus ?? 400)
    .header('content-type', 'application/json')
    .send(JSON.stringify(body));
}
