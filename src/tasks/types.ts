/**
 * What a task is while it lives in a store: one plain JSON object per task, so the in-memory
 * store and the Redis store hold the same thing and any replica can pick a task up. The
 * shapes clients see (2026 `DetailedTask`, 2025 `Task`) are derived from it in wire-shapes.ts.
 */
import type { JsonObject, RequestId } from '../base/jsonrpc.ts';
import type { Identity, Wire } from '../base/types.ts';
import type { InputRequest } from '../registry/types.ts';

/** The statuses of both generations (SEP-2663 and SEP-1686 agree on them). */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}

export interface TaskRecord {
  readonly taskId: string;
  /** Who may see the task: an identity, a 2025 session, or `anonymous` (owner.ts). */
  readonly owner: string;
  readonly wire: Wire;
  readonly protocolVersion: string;
  readonly tool: string;
  /** Validated arguments: a task runs again from the top after each input round. */
  readonly args: unknown;
  readonly clientCapabilities: JsonObject;
  /** The original request's `_meta` (its progressToken stays valid for the task, SEP-1686). */
  readonly meta: JsonObject;
  readonly sessionId?: string;
  /** The authenticated caller, handed to the handler again when the task resumes. */
  readonly identity?: Identity;
  readonly requestId: RequestId;
  status: TaskStatus;
  statusMessage?: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  lastUpdatedAt: number;
  /** From creation; the store may discard the task afterwards. */
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** Outstanding input requests of the current round, by the key the client sees. */
  inputRequests?: Record<string, InputRequest>;
  /** The handler's own key for each key the client sees, for the current round. */
  inputKeys?: Record<string, string>;
  /** Answers collected (this round, or the MRTR rounds before the task), by the handler's key. */
  answers?: Record<string, JsonObject>;
  /** The state the handler attached to the current round. */
  state?: unknown;
  /** Input rounds asked so far: keys the client sees are unique over the task's life. */
  rounds: number;
  result?: JsonObject;
  error?: JsonObject;
  /** The replica running the handler while `working` (a dead one's tasks are failed). */
  runner?: string;
}

/**
 * Where tasks live. `update` is an atomic read-modify-write: `change` gets the current record
 * and returns the next one, or undefined to leave it as it is; a store retries `change` when
 * another writer got there first, so `change` must be a pure function of the record.
 */
export interface TaskStore {
  /** Resolves once the task is durably stored: a `get` anywhere then finds it. */
  create(record: TaskRecord): Promise<void>;
  /** The record, or undefined when unknown or past its TTL. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** Applies `change`; resolves with the record as stored afterwards and whether it changed. */
  update(
    taskId: string,
    change: (current: TaskRecord) => TaskRecord | undefined,
  ): Promise<{ record: TaskRecord; changed: boolean } | undefined>;
  /** An owner's tasks, newest first, paged by an opaque cursor (2025 `tasks/list`). */
  list(
    owner: string,
    cursor: string | undefined,
    limit: number,
  ): Promise<{ tasks: TaskRecord[]; nextCursor?: string }>;
  close(): Promise<void>;
}

/** What replicas tell each other about tasks (Redis pub/sub; a local loop on one replica). */
export type TaskEvent =
  /** A client cancelled the task: the replica running it aborts the handler. */
  | { readonly type: 'cancel'; readonly taskId: string }
  /** The task changed: listen streams subscribed to it get `notifications/tasks`. */
  | { readonly type: 'status'; readonly task: TaskRecord };

export interface TaskBus {
  publish(event: TaskEvent): void;
  /** Returns the unsubscribe function. */
  subscribe(handler: (event: TaskEvent) => void): () => void;
  close(): Promise<void>;
}

/** Whether a replica is still alive, for the tasks it was running. */
export interface ReplicaLiveness {
  /** This process's id, recorded as a running task's `runner`. */
  readonly self: string;
  /** False once `replica` has stopped renewing its lease. */
  isAlive(replica: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Where tasks live and how replicas hear of them: memory on one replica, Redis across several. */
export interface TaskBackend {
  readonly store: TaskStore;
  readonly bus: TaskBus;
  readonly liveness?: ReplicaLiveness;
  /** Clock for task timestamps (tests pass a fake one, with the store's). */
  readonly now?: () => number;
  /** Releases what the backend holds; absent when its owner (the scale-out) does that. */
  close?(): Promise<void>;
}
