/**
 * Tasks in memory, for one replica: a Map of records, each dropped once its TTL (from
 * creation, SEP-2663 `ttlMs`) has passed, on access or by a periodic sweep. Records are
 * copied in and out, so a caller holding one never sees a later change through it; the same
 * contract as the Redis store, where every read is a fresh parse.
 */
import { cloneRecord, decodeOffset, encodeOffset } from './store-shared.ts';
import type { TaskBus, TaskEvent, TaskRecord, TaskStore } from './types.ts';

export interface MemoryTaskStoreOptions {
  /** Clock for expiry (tests pass a fake one). */
  now?: () => number;
  /** How often expired records are swept; default 60 s. */
  sweepMs?: number;
}

/**
 * @example
 * const store = createMemoryTaskStore();
 * await store.create(record);
 */
export function createMemoryTaskStore(options: MemoryTaskStoreOptions = {}): TaskStore {
  const now = options.now ?? Date.now;
  const records = new Map<string, TaskRecord>();
  const expired = (r: TaskRecord) => r.createdAt + r.ttlMs <= now();
  const live = (taskId: string): TaskRecord | undefined => {
    const r = records.get(taskId);
    if (r && expired(r)) {
      records.delete(taskId);
      return undefined;
    }
    return r;
  };
  const sweep = setInterval(() => {
    for (const [id, r] of records) if (expired(r)) records.delete(id);
  }, options.sweepMs ?? 60_000);
  sweep.unref();

  return {
    async create(record) {
      records.set(record.taskId, cloneRecord(record));
    },
    async get(taskId) {
      const r = live(taskId);
      return r && cloneRecord(r);
    },
    async update(taskId, change) {
      const current = live(taskId);
      if (!current) return undefined;
      const next = change(cloneRecord(current));
      if (next === undefined) return { record: cloneRecord(current), changed: false };
      records.set(taskId, cloneRecord(next));
      return { record: next, changed: true };
    },
    async list(owner, cursor, limit) {
      const start = decodeOffset(cursor);
      const mine = [...records.values()]
        .filter((r) => r.owner === owner && !expired(r))
        .sort((a, b) => b.createdAt - a.createdAt);
      const end = Math.min(start + limit, mine.length);
      const page: { tasks: TaskRecord[]; nextCursor?: string } = {
        tasks: mine.slice(start, end).map((r) => cloneRecord(r)),
      };
      if (end < mine.length) page.nextCursor = encodeOffset(end);
      return page;
    },
    async close() {
      clearInterval(sweep);
      records.clear();
    },
  };
}

/** The bus of one replica: every event comes straight back to this process's handlers. */
export function createLocalTaskBus(): TaskBus {
  const handlers = new Set<(event: TaskEvent) => void>();
  return {
    publish(event) {
      for (const handler of handlers) handler(event);
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    async close() {
      handlers.clear();
    },
  };
}
