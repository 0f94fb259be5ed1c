/**
 * The HTTP edge in front of the MCP routes: the caller is authenticated (API key or OAuth
 * bearer token) before the body is read, and charged against its token bucket once the body
 * says how many requests it holds (a batch costs one token per request, all or nothing).
 * Refusals go through `refuse()` (refuse.ts): a JSON-RPC error body with the right status and
 * headers, and a span in the caller's trace, a count and a log line.
 */
import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '../../base/errors.ts';
import { isObject } from '../../base/jsonrpc.ts';
import { Refusal } from '../../base/refusals.ts';
import { rateLimitError } from '../../ratelimit/errors.ts';
import { clientKey } from '../../ratelimit/limiter.ts';
import type { HttpDeps } from '../deps.ts';
import { refuse } from './refuse.ts';

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
