/**
 * Ids of a session's SSE streams. An event id is `<streamId>_<n>` and a client resumes with
 * it (`Last-Event-ID`), so the stream id says which session it belongs to: a resume from
 * another session's stream is treated as an unknown id, never replayed (MCP 2025-11-25
 * "Resumability": the server replays only the messages of the stream the id names, and a
 * session's messages are its own). The session appears as a hash: event ids travel to the
 * client and into logs, and a session id is a credential.
 */
import { createHash, randomUUID } from 'node:crypto';

/** 16 hex digits of the session id's SHA-256. */
function sessionTag(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex').slice(0, 16);
}

/** A new stream id of `sessionId` (undefined: a stream no session owns, never resumed). */
export function newStreamId(sessionId: string | undefined): string {
  return sessionId === undefined ? randomUUID() : `${sessionTag(sessionId)}-${randomUUID()}`;
}

/** Whether `streamId` is a stream of `sessionId`. */
export function isStreamOf(streamId: string, sessionId: string): boolean {
  return streamId.startsWith(`${sessionTag(sessionId)}-`);
}
