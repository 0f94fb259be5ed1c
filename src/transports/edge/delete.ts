/**
 * DELETE on the MCP endpoint: the client ends its 2025-wire session (MCP 2025-11-25 "Session
 * Management"); its standalone streams are closed and later requests with its id get 404.
 */
import type { EdgeRequest } from './host.ts';
import { type RouteState, refuseStoreError, sessionFor } from './route-state.ts';

/** Answers a DELETE (charged to the rate limit already). */
export async function handleDelete(state: RouteState, req: EdgeRequest, reply: unknown): Promise<unknown> {
  const { deps, standalone, host } = state;
  const session = await sessionFor(state, req, reply);
  if (!session) return reply;
  try {
    standalone.get(session.id)?.retire();
    // Across replicas: the session's feed closes, and the streams following it end everywhere.
    await deps.hub.sessionStreams.feed?.close(session.id);
    await deps.sessions.delete(session.id);
    deps.sessionEnded(session.id);
  } catch (err) {
    refuseStoreError(state, req, reply, err);
    return reply;
  }
  host.send(reply, 200, undefined, undefined);
  return reply;
}
