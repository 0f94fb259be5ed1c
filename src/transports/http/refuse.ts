/**
 * Refusals on Fastify's side: `refuse()` for the routes beside the MCP endpoint (the plugins'
 * routes, the discovery documents, the fallbacks, the drain), the same JSON-RPC error body and
 * record as the edge's own (src/transports/edge/refuse.ts, which it calls); and the onSend hook
 * that records any error answer of a scope that did not come through `refuse()`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProtocolError } from '../../base/errors.ts';
import type { Identity } from '../../base/types.ts';
import { bodyId, recordEdgeRefusal, refuse as refuseOnEdge } from '../edge/refuse.ts';
import { type RefusalDeps, statusReason } from '../edge/rules.ts';
import { fastifyHost } from './fastify-host.ts';

declare module 'fastify' {
  interface FastifyRequest {
    mcpIdentity: Identity | undefined;
    /** The request reached the dispatcher (its refusals, a tool's scope or limit, have an MCP span). */
    mcpDispatched: boolean;
    /** `refuse()` recorded this refusal already (span, count, log line). */
    mcpRefusalRecorded?: boolean;
  }
}

export type { RefusalDeps } from '../edge/rules.ts';

/** Refusals need no stream: a host without a set of streams to hold. */
const HOST = fastifyHost(new Set());

/**
 * Sends `err` as a JSON-RPC error with its status and headers, and records it. `id` is the
 * request id to echo; by default the body's, once it has been read.
 *
 * @example
 * return refuse(deps, req, reply, Refusal.hostNotAllowed(req.headers.host), null);
 */
export function refuse(
  deps: RefusalDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  err: ProtocolError,
  id: unknown = bodyId(req),
): FastifyReply {
  refuseOnEdge({ deps, host: HOST }, req, reply, err, id);
  return reply;
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
 * Records any error answer of this scope that did not come through `refuse()` and was not the
 * dispatcher's (the edge counts those as it sends them), so none goes unseen.
 */
export function installRefusalRecording(app: FastifyInstance, deps: RefusalDeps): void {
  app.addHook('onSend', (req, reply, payload, done) => {
    const status = reply.statusCode;
    if (
      status >= 400 &&
      !req.mcpRefusalRecorded &&
      !req.mcpDispatched &&
      statusReason(status) !== undefined
    ) {
      try {
        recordEdgeRefusal(deps, HOST, req, reply, status, errorOf(payload));
      } catch (err) {
        deps.logger.error({ err }, 'recording a refusal failed');
      }
    }
    done(null, payload);
  });
}
