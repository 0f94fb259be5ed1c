/**
 * The HTTP edge in front of the MCP routes: the caller is authenticated (API key or OAuth
 * bearer token) before the body is read, and charged against its token bucket once the body
 * says how many requests it holds (a batch costs one token per request, all or nothing).
 * Refusals go through `refuse()` (refuse.ts): a JSON-RPC error body with the right status and
 * headers, and a span in the caller's trace, a count and a log line.
 */
import type { FastifyInstance } from 'fastify';
import { rateLimitError } from '../../ratelimit/errors.ts';
import { clientKey } from '../../ratelimit/limiter.ts';
import type { HttpDeps } from '../deps.ts';
import { refuse } from './refuse.ts';
import { authRefusal, requestCost } from './rules.ts';

export function installEdge(app: FastifyInstance, server: HttpDeps): void {
  app.decorateRequest('mcpIdentity', undefined);
  app.decorateRequest('mcpDispatched', false);
  const { auth, limiter } = server;
  // Callback-style hooks: an async hook costs Fastify a promise of its own and its settling
  // on every request, on top of the check's. Whatever throws after the check is logged, never
  // left as an unhandled rejection (which would end the process).
  const hookFailed = (err: unknown) => server.logger.error({ err }, 'HTTP edge hook failed');
  if (auth) {
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
            refuse(server, req, reply, authRefusal(err, server.logger));
          },
        )
        .catch(hookFailed);
    });
  }
  if (limiter && limiter.burst > 0) {
    app.addHook('preHandler', (req, reply, done) => {
      const cost = requestCost(req.body);
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
