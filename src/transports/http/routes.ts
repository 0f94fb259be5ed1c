/**
 * The streamable HTTP transport as a Fastify plugin: POST, GET and DELETE on the MCP path
 * mapped onto the dispatcher (MCP 2025-11-25 "Streamable HTTP"; the 2026 stateless wire on
 * the same endpoint, routed per request). In order: the Host and Origin checks and the early
 * body-size check, then the edge (auth, rate limit), the body parser, and the routes, one file
 * each (post.ts, get-stream.ts, delete.ts). Every refusal goes through `refuse()`.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { Refusal } from '../../base/refusals.ts';
import type { EventStore, HttpDeps } from '../deps.ts';
import { installBodyHandling } from './body.ts';
import { installDelete } from './delete.ts';
import { installEdge } from './edge.ts';
import { createMemoryEventStore } from './event-store.ts';
import { installGetStream } from './get-stream.ts';
import { createHostGuard } from './guards.ts';
import type { HttpOptions } from './options.ts';
import { installPost } from './post.ts';
import { installRefusalRecording, refuse } from './refuse.ts';
import type { RouteState } from './route-state.ts';

export interface McpRoutesOptions {
  server: HttpDeps;
  http: HttpOptions;
  eventStore?: EventStore;
  /** Every SSE response open on these routes, for a drain to end them (added and removed here). */
  streams?: Set<ServerResponse>;
}

export async function mcpRoutes(app: FastifyInstance, options: McpRoutesOptions): Promise<void> {
  const { server: deps, http } = options;
  const guard = createHostGuard(http);
  const maxBody = http.limits.maxBodyBytes;
  const state: RouteState = {
    deps,
    options: http,
    store:
      options.eventStore ??
      deps.eventStore ??
      createMemoryEventStore({ retention: http.limits.eventRetention }),
    live: new Map(),
    standalone: new Map(),
    openStreams: new Map(),
    streams: options.streams ?? new Set(),
  };

  installRefusalRecording(app, deps);
  // Callback-style, as every per-request hook of these routes (edge.ts): an async hook costs
  // Fastify a promise and its settling on every request. A refusal is answered here and `done`
  // is not called, so the request goes no further.
  app.addHook('onRequest', (req, reply, done) => {
    if (!guard.hostAllowed(req.headers.host)) {
      refuse(deps, req, reply, Refusal.hostNotAllowed(req.headers.host), null);
      return;
    }
    if (!guard.originAllowed(req.headers.origin)) {
      refuse(deps, req, reply, Refusal.originNotAllowed(req.headers.origin), null);
      return;
    }
    if (req.method === 'POST' && Number(req.headers['content-length'] ?? 0) > maxBody) {
      refuse(deps, req, reply, Refusal.bodyTooLarge(maxBody), null);
      return;
    }
    done();
  });
  // Auth and rate limits run after the Host/Origin checks, so a rebinding page learns nothing.
  installEdge(app, deps);
  installBodyHandling(app, deps, maxBody);

  installPost(app, state);
  installGetStream(app, state);
  installDelete(app, state);
  app.route({
    // With CORS on, OPTIONS is the preflight (answered by @fastify/cors), not a wrong method.
    method: http.corsOrigins.length > 0 ? ['PUT', 'PATCH'] : ['PUT', 'PATCH', 'OPTIONS'],
    url: http.path,
    handler: async (req, reply) => refuse(deps, req, reply, Refusal.methodNotAllowed(), null),
  });
}
