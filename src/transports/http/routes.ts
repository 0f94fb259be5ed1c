/**
 * The MCP endpoint on Fastify: the HTTP edge (src/transports/edge/pipeline.ts, where the order
 * of its stages is written) mapped onto Fastify's request lifecycle. Stages 1 to 3 (Host and
 * Origin, size, auth) run in an onRequest hook, the body (stage 4) in the content parser
 * (body.ts), the rest in the route's handler; the host (fastify-host.ts) answers as Fastify
 * does. Every refusal goes through the edge's `refuse()`.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProtocolError } from '../../base/errors.ts';
import type { Identity } from '../../base/types.ts';
import type { EventStore, HttpDeps } from '../deps.ts';
import { edgeOptions } from '../edge/options.ts';
import { createEdge } from '../edge/pipeline.ts';
import { installBodyHandling } from './body.ts';
import { wantsHtml } from './discovery-routes.ts';
import { fastifyHost } from './fastify-host.ts';
import type { HttpOptions } from './options.ts';
import { installRefusalRecording } from './refuse.ts';

export interface McpRoutesOptions {
  server: HttpDeps;
  http: HttpOptions;
  eventStore?: EventStore;
  /** Every SSE response open on these routes, for a drain to end them (added and removed here). */
  streams?: Set<ServerResponse>;
  /** Where these routes put how to stop the requests they are dispatching, for a drain past its deadline. */
  interrupts?: Set<(reason: ProtocolError) => void>;
  /** Where the ends of call streams still being written go, for a drain to wait for them. */
  finishing?: Set<Promise<void>>;
  /** Preflights reach this route (answered by a scoped CORS hook, mount.ts); else OPTIONS is 405 without CORS. */
  preflight?: boolean | undefined;
  /** The application's own word on who the caller is (the Fastify plugin's `identify`). */
  identify?: ((request: FastifyRequest) => Identity | undefined | Promise<Identity | undefined>) | undefined;
  /**
   * Whether anything but our own code may answer on these routes (an application's hooks,
   * @fastify/cors): their error answers are recorded by an onSend hook. Our own answers are
   * recorded as they are sent (refuse.ts), so without foreign answers the hook, which Fastify
   * would run on every reply, is left out. Default true.
   */
  foreignAnswers?: boolean | undefined;
  /** The app trusts no proxy: a request's address is its socket's (fastify-host.ts). Default false. */
  socketAddress?: boolean | undefined;
  /** Answers a browser's GET of the path (`landingOnPath`, discovery-routes.ts); undefined: no landing page. */
  landing?: ((req: FastifyRequest, reply: FastifyReply) => void) | undefined;
}

export async function mcpRoutes(app: FastifyInstance, options: McpRoutesOptions): Promise<void> {
  const { server: deps, http } = options;
  const edge = createEdge<FastifyRequest, FastifyReply>({
    deps,
    options: edgeOptions(http),
    host: fastifyHost(options.streams ?? new Set(), { socketAddress: options.socketAddress }),
    sessions: 'stateful',
    eventStore: options.eventStore,
    eventRetention: http.limits.eventRetention,
    identify: options.identify,
    finishing: options.finishing,
  });
  options.interrupts?.add((reason) => edge.interrupt(reason));
  app.decorateRequest('mcpIdentity', undefined);
  app.decorateRequest('mcpDispatched', false);
  if (options.foreignAnswers !== false) installRefusalRecording(app, deps);
  // Callback-style, as every per-request hook of these routes: an async hook costs Fastify a
  // promise and its settling on every request. A refusal is answered here and `done` is not
  // called, so the request goes no further. Whatever throws after the check is logged, never
  // left as an unhandled rejection (which would end the process).
  const hookFailed = (err: unknown) => deps.logger.error({ err }, 'HTTP edge hook failed');
  const { landing } = options;
  app.addHook('onRequest', (req, reply, done) => {
    // A browser's GET (or HEAD) gets the landing page, before the endpoint's checks (no auth for
    // it); only these read Accept for it, once, here (no route constraint derived per request).
    if (
      landing !== undefined &&
      (req.method === 'GET' || req.method === 'HEAD') &&
      wantsHtml(req.headers.accept)
    )
      return landing(req, reply);
    const refusal = edge.admit(req);
    if (refusal === undefined) return done();
    if (!(refusal instanceof Promise)) return void edge.refuse(req, reply, refusal, null);
    refusal
      .then((refused: ProtocolError | undefined) => {
        if (refused) edge.refuse(req, reply, refused, null);
        else done();
      })
      .catch(hookFailed);
  });
  installBodyHandling(app, deps, edge);
  const answerFailure = (reply: FastifyReply, err: unknown) => {
    if (!reply.sent) reply.send(err);
    else deps.logger.error({ err }, 'MCP request failed after its answer was sent');
  };
  app.route({
    // With CORS on, OPTIONS is the preflight (answered by @fastify/cors), not a wrong method.
    method:
      http.corsOrigins.length > 0 && !options.preflight
        ? ['POST', 'GET', 'DELETE', 'PUT', 'PATCH']
        : ['POST', 'GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'],
    url: http.path,
    // The promise is not handed to Fastify, which would chain a reaction of its own on every
    // request: the edge answers through the reply itself, and a failure is answered here.
    handler: (req, reply) => edge.answer(req, reply, answerFailure),
  });
}
