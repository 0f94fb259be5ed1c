/**
 * What the MCP endpoint's methods (POST, GET stream, DELETE) share: the parts of the server
 * they use, the host that answers, the event store behind SSE resumption, the live streams a
 * reconnect can re-attach to, and the session lookup every 2025-wire request starts with.
 */
import { ProtocolError } from '../../base/errors.ts';
import type { EncodeFailure } from '../../base/jsonrpc.ts';
import { Refusal } from '../../base/refusals.ts';
import type { Headers } from '../../base/types.ts';
import { type Session, sessionOwner } from '../../protocol/session/store.ts';
import { header } from '../../protocol/wires/wire.ts';
import type { EdgeDeps, EventStore } from '../deps.ts';
import type { EdgeHost, EdgeRequest } from './host.ts';
import type { InFlight } from './in-flight.ts';
import type { EdgeOptions, SessionMode } from './options.ts';
import { refuse } from './refuse.ts';
import { acceptAllows } from './rules.ts';
import type { SseStream } from './sse.ts';
import type { StandaloneStream } from './standalone-stream.ts';

export interface RouteState {
  readonly deps: EdgeDeps;
  readonly options: EdgeOptions;
  readonly host: EdgeHost;
  readonly store: EventStore;
  /** How the 2025 wire's sessions are kept (options.ts). */
  readonly sessions: SessionMode;
  /** Logs a reply JSON cannot carry. */
  readonly encodeFailed: EncodeFailure;
  /** Live POST streams by id, so a GET with Last-Event-ID can re-attach. */
  readonly live: Map<string, { stream: SseStream; sessionId: string }>;
  /**
   * Each session's standalone GET stream (one replica, no session feed), by session id. A
   * dropped one stays attached (its events go on into the store) for a grace period, so a
   * reconnect with Last-Event-ID gets what it missed.
   */
  readonly standalone: Map<string, StandaloneStream>;
  /**
   * Standalone streams retired after their grace, by stream id, with their session's id, while
   * the store keeps their events: a resume of one goes on as the session's live stream.
   */
  readonly retiredStandalone: Map<string, string>;
  /** Open GET connections per session id, held to `limits.maxStreamsPerSession`. */
  readonly openStreams: Map<string, number>;
  /** The POSTs being dispatched now, by their client's presence: a drain's cut-off interrupts them. */
  readonly dispatching: InFlight;
  /** The ends of call streams still being written (EdgeSetup.finishing). */
  readonly finishing: Set<Promise<void>>;
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
export function accepts(req: EdgeRequest, type: string): boolean {
  return acceptsType(req.headers, type);
}

/** `accepts` of a request's headers, read once already. */
export function acceptsType(headers: Headers, type: string): boolean {
  const accept = headers.accept;
  return acceptAllows(Array.isArray(accept) ? accept.join(', ') : accept, type);
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

export function streamHeaders(sessionId: string | undefined): Readonly<Record<string, string>> {
  return sessionId ? { 'mcp-session-id': sessionId } : NO_HEADERS;
}

/**
 * A shared store that cannot be reached answers with its own ProtocolError (503 and
 * Retry-After, src/scale/); anything else is a bug and is thrown on.
 */
export function refuseStoreError(
  state: RouteState,
  req: EdgeRequest,
  res: unknown,
  err: unknown,
  id?: unknown,
): void {
  if (!(err instanceof ProtocolError) || err.httpStatus === undefined) throw err;
  refuse(state, req, res, err, id);
}

/** The request's 2025-wire session; undefined once the refusal (400, 404, 503) has been sent. */
export async function sessionFor(
  state: RouteState,
  req: EdgeRequest,
  res: unknown,
  id?: unknown,
): Promise<Session | undefined> {
  const sid = header(req.headers, 'mcp-session-id');
  if (!sid) {
    refuse(state, req, res, Refusal.sessionRequired(), id);
    return undefined;
  }
  let session: Session | undefined;
  try {
    session = await state.deps.sessions.get(sid);
  } catch (err) {
    refuseStoreError(state, req, res, err, id);
    return undefined;
  }
  // Bound to the identity that opened it: anyone else is told it does not exist.
  if (!session || session.owner !== sessionOwner(req.mcpIdentity)) {
    refuse(state, req, res, Refusal.sessionNotFound(), id);
    return undefined;
  }
  return session;
}
