/**
 * What the MCP routes (POST, GET stream, DELETE) share: the parts of the server they use, the
 * event store behind SSE resumption, the live streams a reconnect can re-attach to, and the
 * session lookup every 2025-wire route starts with.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProtocolError } from '../../base/errors.ts';
import { Refusal } from '../../base/refusals.ts';
import { type Session, sessionOwner } from '../../protocol/session.ts';
import { header } from '../../protocol/wire.ts';
import type { EventStore, HttpDeps } from '../deps.ts';
import type { HttpOptions } from './options.ts';
import { refuse } from './refuse.ts';
import { acceptAllows } from './rules.ts';
import type { SseStream } from './sse.ts';

export interface RouteState {
  readonly deps: HttpDeps;
  readonly options: HttpOptions;
  readonly store: EventStore;
  /** Live POST streams by id, so a GET with Last-Event-ID can re-attach. */
  readonly live: Map<string, { stream: SseStream; sessionId: string }>;
  /**
   * Standalone GET streams by id. A dropped one stays attached (its events go on into the
   * store) for a grace period, so a reconnect with Last-Event-ID gets what it missed.
   */
  readonly standalone: Map<string, { sessionId: string; retire: () => void }>;
  /** Open GET connections per session id, held to `limits.maxStreamsPerSession`. */
  readonly openStreams: Map<string, number>;
  /** Every SSE response these routes hold open (hijacked), for a drain to end. */
  readonly streams: Set<ServerResponse>;
}

/** Takes the response over for an SSE stream, held in `state.streams` until it closes. */
export function hijackStream(state: RouteState, reply: FastifyReply): void {
  reply.hijack();
  const raw = reply.raw;
  state.streams.add(raw);
  raw.on('close', () => state.streams.delete(raw));
}

/**
 * Counts one GET connection of `sessionId` until the returned release is called (once; later
 * calls do nothing), or answers undefined when the session holds its limit already.
 */
export function holdStream(state: RouteState, sessionId: string): (() => void) | undefined {
  const open = state.openStreams.get(sessionId) ?? 0;
  if (open >= state.options.limits.maxStreamsPerSession) return undefined;
  state.openStreams.set(sessionId, open + 1);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    const left = (state.openStreams.get(sessionId) ?? 1) - 1;
    if (left > 0) state.openStreams.set(sessionId, left);
    else state.openStreams.delete(sessionId);
  };
}

/** Whether the Accept header allows `type` (no header, or an empty one, allows anything). */
export function accepts(req: FastifyRequest, type: string): boolean {
  return acceptAllows(req.headers.accept, type);
}

export function streamHeaders(sessionId: string | undefined): Record<string, string> {
  return sessionId ? { 'mcp-session-id': sessionId } : {};
}

/**
 * A shared store that cannot be reached answers with its own ProtocolError (503 and
 * Retry-After, src/scale/); anything else is a bug and goes to the error handler.
 */
export function refuseStoreError(
  state: RouteState,
  req: FastifyRequest,
  reply: FastifyReply,
  err: unknown,
  id?: unknown,
): FastifyReply {
  if (!(err instanceof ProtocolError) || err.httpStatus === undefined) throw err;
  return refuse(state.deps, req, reply, err, id);
}

/** The request's 2025-wire session; undefined once the refusal (400, 404, 503) has been sent. */
export async function sessionFor(
  state: RouteState,
  req: FastifyRequest,
  reply: FastifyReply,
  id?: unknown,
): Promise<Session | undefined> {
  const sid = header(req.headers, 'mcp-session-id');
  if (!sid) {
    refuse(state.deps, req, reply, Refusal.sessionRequired(), id);
    return undefined;
  }
  let session: Session | undefined;
  try {
    session = await state.deps.sessions.get(sid);
  } catch (err) {
    refuseStoreError(state, req, reply, err, id);
    return undefined;
  }
  // Bound to the identity that opened it: anyone else is told it does not exist.
  if (!session || session.owner !== sessionOwner(req.mcpIdentity)) {
    refuse(state.deps, req, reply, Refusal.sessionNotFound(), id);
    return undefined;
  }
  return session;
}
