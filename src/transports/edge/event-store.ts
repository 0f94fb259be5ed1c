/**
 * The event store behind SSE resumability, in memory: every event written to a resumable
 * stream gets an id `<streamId>_<seq>` and is kept (bounded per stream), so a client
 * reconnecting with `Last-Event-ID` receives the rest of that stream. The port it implements,
 * `EventStore`, is declared with what the transports take (../deps.ts); a shared store (Redis
 * Streams, for replicas, src/transports/edge/redis-event-store.ts) implements the same interface.
 */
import type { EventStore, StoredEvent } from '../deps.ts';

function parseEventId(eventId: string): { streamId: string; seq: number } | undefined {
  const cut = eventId.lastIndexOf('_');
  if (cut <= 0) return undefined;
  const seq = Number(eventId.slice(cut + 1));
  return Number.isInteger(seq) && seq >= 0 ? { streamId: eventId.slice(0, cut), seq } : undefined;
}

/**
 * Whether event id `a` of this store was written before `b` of the same stream; false when
 * either is not one of its ids (then nothing is known of their order).
 */
export function writtenBefore(a: string, b: string): boolean {
  const x = parseEventId(a);
  const y = parseEventId(b);
  return x !== undefined && y !== undefined && x.streamId === y.streamId && x.seq < y.seq;
}

/** How long a released (finished) stream's events stay readable by default, for a late resume. */
export const RELEASED_STREAM_KEPT_MS = 60_000;

export function createMemoryEventStore(options: { retention: number; graceMs?: number }): EventStore {
  if (!(options.retention > 0)) throw new RangeError('createMemoryEventStore: retention must be positive');
  const graceMs = options.graceMs ?? RELEASED_STREAM_KEPT_MS;
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
