/**
 * What clients see of a task, per generation:
 * - 2026-07-28 (SEP-2663): a flat `Task` with `ttlMs`/`pollIntervalMs`; `CreateTaskResult`
 *   is `resultType: "task"` plus the task; `tasks/get` returns a `DetailedTask` that inlines
 *   `inputRequests`, `result` or `error` by status. No `requestState` anywhere on a task.
 * - 2025-11-25 (SEP-1686): `Task` with `ttl`/`pollInterval`; `CreateTaskResult` wraps it as
 *   `{ task }`; the result is fetched with `tasks/result`.
 */
import { ErrorCode, ProtocolError } from '../../base/errors.ts';
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { TASKS_EXTENSION } from '../../base/meta-keys.ts';
import type { TaskView } from './profile.ts';

/** `_meta` key tying a message to a task (SEP-1686; kept off 2026 inlined results, SEP-2663). */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

const iso = (ms: number) => new Date(ms).toISOString();

/** SEP-2663 `Task`. */
function task2026(r: TaskView): JsonObject {
  const task: JsonObject = {
    taskId: r.taskId,
    status: r.status,
    createdAt: iso(r.createdAt),
    lastUpdatedAt: iso(r.lastUpdatedAt),
    ttlMs: r.ttlMs,
    pollIntervalMs: r.pollIntervalMs,
  };
  if (r.statusMessage !== undefined) task.statusMessage = r.statusMessage;
  return task;
}

/** SEP-2663 `DetailedTask`: what `tasks/get` and `notifications/tasks` carry. */
export function detailed2026(r: TaskView): JsonObject {
  const task = task2026(r);
  if (r.status === 'input_required' && r.inputRequests) task.inputRequests = r.inputRequests as JsonObject;
  if (r.status === 'completed' && r.result) task.result = r.result;
  if (r.status === 'failed' && r.error) task.error = r.error;
  return task;
}

/** SEP-2663 `CreateTaskResult`: the flat `Result & Task`. */
export function created2026(r: TaskView): JsonObject {
  return { ...task2026(r), resultType: 'task' };
}

/** SEP-1686 `Task`. */
export function task2025(r: TaskView): JsonObject {
  const task: JsonObject = {
    taskId: r.taskId,
    status: r.status,
    createdAt: iso(r.createdAt),
    lastUpdatedAt: iso(r.lastUpdatedAt),
    ttl: r.ttlMs,
    pollInterval: r.pollIntervalMs,
  };
  if (r.statusMessage !== undefined) task.statusMessage = r.statusMessage;
  return task;
}

/** SEP-1686 `CreateTaskResult`. */
export function created2025(r: TaskView): JsonObject {
  return { task: task2025(r) };
}

/** `_meta` with the related-task key added (2025 messages that belong to a task). */
export function withRelatedTask(meta: unknown, taskId: string): JsonObject {
  const base = typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as JsonObject) : {};
  return { ...base, [RELATED_TASK]: { taskId } };
}

/** Whether a request's capabilities declare the tasks extension (per request, SEP-2575). */
export function declaresTasks(capabilities: unknown): boolean {
  const extensions = isObject(capabilities) ? capabilities.extensions : undefined;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** -32021 naming the extension, as SEP-2663 §Capability Negotiation shows it. */
export function missingTasksExtension(what: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.MissingRequiredClientCapability,
    `${what} needs the ${TASKS_EXTENSION} extension: declare it in params._meta["io.modelcontextprotocol/clientCapabilities"].extensions`,
    { httpStatus: 400, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } },
  );
}
