/**
 * Our own authorisation server's paths (`MCP_AUTH=oauth-proxy`): its RFC 8414 and OpenID
 * discovery documents, `/oauth/*` (authorize, token, revoke, JWKS, registration, the sign-in
 * pages and the upstream callback). A scope of its own beside the MCP routes: the Host check
 * applies (DNS rebinding), the rate limit too (per address: nobody is signed in yet), auth
 * does not. Each request is handed over unread (`reply.hijack()` before Fastify parses a body):
 * oidc-provider reads its own forms and JSON.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Refusal } from '../../base/refusals.ts';
import { rateLimitError } from '../../ratelimit/errors.ts';
import { clientKey } from '../../ratelimit/limiter.ts';
import type { AuthorizationServerRoutes, HttpDeps } from '../deps.ts';
import { createHostGuard } from '../edge/guards.ts';
import type { HttpOptions } from './options.ts';
import { refuse } from './refuse.ts';

export interface AuthorizationRoutesOptions {
  server: HttpDeps;
  http: HttpOptions;
  authorizationServer: AuthorizationServerRoutes;
}

export async function authorizationRoutes(
  app: FastifyInstance,
  options: AuthorizationRoutesOptions,
): Promise<void> {
  const { server, http, authorizationServer } = options;
  const guard = createHostGuard(http);
  const { limiter } = server;

  const handOver = (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    if (!guard.hostAllowed(req.headers.host)) {
      refuse(server, req, reply, Refusal.hostNotAllowed(req.headers.host), null);
      return;
    }
    const run = () => {
      reply.hijack();
      authorizationServer.handle(req.raw, reply.raw).catch((err: unknown) => {
        server.logger.error({ err }, 'oauth-proxy: request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json' });
          reply.raw.end(
            JSON.stringify({ error: 'server_error', error_description: 'the authorization server failed' }),
          );
        } else reply.raw.end();
      });
    };
    if (!limiter || limiter.burst <= 0 || req.method === 'OPTIONS') return run();
    limiter.consume(clientKey(undefined, req.ip), 1).then(
      (decision) => {
        if (decision.allowed) run();
        else refuse(server, req, reply, rateLimitError(decision));
      },
      (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
    );
  };
  // The work happens in onRequest (before any body parsing); the handler is never reached.
  const never = async () => undefined;
  for (const path of authorizationServer.paths) {
    app.route({
      method: ['GET', 'POST', 'OPTIONS', 'DELETE', 'PUT'],
      url: path,
      onRequest: handOver,
      handler: never,
    });
  }
}
