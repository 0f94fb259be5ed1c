/**
 * DELETE on the MCP endpoint: the client ends its 2025-wire session (MCP 2025-11-25 "Session
 * Management"); its standalone streams are closed and later requests with its id get 404.
 */
import type { FastifyInstance } from 'fastify';
import { type RouteState, refuseStoreError, sessionFor } from './route-state.ts';

export function installDelete(app: FastifyInstance, state: RouteState): void {
  const { deps, options, standalone } = state;
  app.delete(options.path, async (req, reply) => {
    const session = await sessionFor(state, req, reply);
    if (!session) return reply;
    try {
      for (const entry of [...standalone.values()]) if (entry.sessionId === session.id) entry.retire();
      // Across replicas: the session's feed closes, and the streams following it end everywhere.
      await deps.hub.sessionStreams.feed?.close(session.id);
      await deps.sessions.delete(session.id);
      deps.sessionEnded(session.id);
    } catch (err) {
      return refuseStoreError(state, req, reply, err);
    }
    return reply.code(200).send();
  });
}
