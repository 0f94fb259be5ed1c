/** The JSON-RPC error answer of the HTTP transport (edge refusals, session and envelope errors). */
import type { FastifyReply } from 'fastify';
import { ProtocolError } from '../../protocol/errors.ts';
import { errorResponse } from '../../protocol/jsonrpc.ts';

/** Sends a JSON-RPC error body with an HTTP status (edge refusals, envelope errors). */
export function sendError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
  id: unknown = null,
) {
  const body = errorResponse(
    typeof id === 'string' || typeof id === 'number' ? id : null,
    new ProtocolError(code, message),
  );
  return reply.code(status).header('content-type', 'application/json').send(JSON.stringify(body));
}
