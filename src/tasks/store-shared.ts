/**
 * What the task stores share, the in-memory one (memory-store.ts) and the Redis one
 * (src/tasks/redis-store.ts): a record's deep copy, so a caller holding one never sees a
 * later change through it, and the `tasks/list` cursor both issue and read.
 */
import { ErrorCode, ProtocolError } from '../base/errors.ts';
import { isBigId } from '../base/json-ids.ts';
import type { TaskRecord } from './types.ts';

/**
 * A deep copy of a record. An id past Number.MAX_SAFE_INTEGER (a `BigId`, json-ids.ts) cannot
 * go through structuredClone; it is frozen, so the copy shares it.
 *
 * @example
 * records.set(record.taskId, cloneRecord(record));
 */
export function cloneRecord(record: TaskRecord): TaskRecord {
  const token = record.meta.progressToken;
  const bigToken = isBigId(token);
  const copy = structuredClone({
    ...record,
    requestId: isBigId(record.requestId) ? 0 : record.requestId,
    meta: bigToken ? { ...record.meta, progressToken: null } : record.meta,
  });
  return {
    ...copy,
    requestId: record.requestId,
    meta: bigToken ? { ...copy.meta, progressToken: token } : copy.meta,
  };
}

/** The `tasks/list` cursor of a page starting at `offset`. */
export function encodeOffset(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

/** The offset a `tasks/list` cursor carries; -32602 for one we did not issue. */
export function decodeOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const o = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown }).o;
    if (typeof o === 'number' && Number.isInteger(o) && o >= 0) return o;
  } catch {
    // fall through: the client's error
  }
  throw new ProtocolError(ErrorCode.InvalidParams, 'Invalid cursor: pass back a nextCursor from tasks/list');
}
