/**
 * The event store behind SSE resumability: every event written to a resumable stream gets
 * an id `<streamId>_<seq>` and is kept (bounded per stream), so a client reconnecting with
 * `Last-Event-ID` receives the rest of that stream. In memory here; a shared store (Redis
 * Streams, for replicas) implements the same interface.
 */
import type { JsonRpcMessage } from '../../base/jsonrpc.ts';

export interface StoredEvent {
  id: string;
  message: JsonRpcMessage | undefined;
}

export interface EventStore {
  /** Stores an event (undefined message: a priming event) and returns its id. */
  append(streamId: string, message: JsonRpcMessage | undefined): Promise<string>;
  /** The stream an event id belongs to, when that stream is known. */
  streamOf(eventId: string): Promise<string | undefined>;
  /** Events of the stream after `eventId`, oldest first. */
  after(eventId: string): Promise<StoredEvent[]>;
  /** Forgets a finished stream (after a grace period for late reconnects). */
  release(streamId: string): Promise<void>;
  /**
   * Shared stores only (src/scale/), where a stream may be live on another replica: passes
   * the events after `eventId` to `onEvent`, then each later one as it is stored, until the
   * stream is released or `signal` aborts. Absent here: a stream not live in this process
   * has finished, and `after` has all of it.
   */
  follow?(eventId: string, onEvent: (event: StoredEvent) => void, signal: AbortSignal): Promise<void>;
}

function parseEventId(eventId: string): { streamId: string; seq: number } | undefined {
  const cut = eventId.lastIndexOf('_');
  if (cut <= 0) return undefined;
  const seq = Number(eventId.slice(cut + 1));
  return Number.isInteger(seq) && seq >= 0 ? { streamId: eventId.slice(0, cut), seq } : undefined;
}

export function createMemoryEventStore(options: { retention: number; graceMs?: number }): EventStore {
  if (!(options.retention > 0)) throw new RangeError('createMemoryEventStore: retention must be positive');
  const graceMs = options.graceMs ?? 60_000;
  const streams = new Map<string, { seq: number; events: StoredEvent[] }>();
  return {
    async append(streamId, message) {
      let s = streams.get(streamId);
      if (!s) {
        s = { seq: 0, events: [] };
        streams.set(streamId, s);
      }
      const id = `${streamId}_${++s.seq}`;
      s.events.push({ id, message });
      if (s.events.length > options.retention) s.events.shift();
      return id;
    },
    async streamOf(eventId) {
      const parsed = parseEventId(eventId);
      return parsed && streams.has(parsed.streamId) ? parsed.streamId : undefined;
    },
    async after(eventId) {
      const parsed = parseEventId(eventId);
      const s = parsed && streams.get(parsed.streamId);
      if (!parsed || !s) return [];
      return s.events.filter((e) => (parseEventId(e.id)?.seq ?? 0) > parsed.seq);
    },
    async release(streamId) {
      setTimeout(() => streams.delete(streamId), graceMs).unref();
    },
  };
}
