/**
 * The tasks surface on both wires, as method handlers the dispatcher routes to, plus the
 * `tools/call` hook that decides whether a call becomes a task.
 *
 * 2026-07-28, extension `io.modelcontextprotocol/tasks` (SEP-2663): the server creates a task
 * for a task-enabled tool whenever the request declares the extension; `tasks/get`,
 * `tasks/update` and `tasks/cancel` need that declaration (-32021 without it); `tasks/result`
 * and `tasks/list` are gone (the dispatcher answers -32601).
 * 2025-11-25 core tasks (SEP-1686): the client asks with `params.task`; `tasks/get`,
 * `tasks/result` (blocks until the end, delivering input rounds as server-to-client
 * requests), `tasks/list` and `tasks/cancel`; a tool that requires a task, called without
 * one, is -32601.
 */
import { ErrorCode, ProtocolError } from '../base/errors.ts';
import { isObject, type JsonObject } from '../base/jsonrpc.ts';
import { runWithInput } from '../protocol/input.ts';
import type { MethodDeps, MethodHandler } from '../protocol/methods.ts';
import type { RequestContext } from '../protocol/request-context.ts';
import type { ToolDefinition } from '../registry/define.ts';
import type { TaskEngine } from './engine.ts';
import { isTerminal, type TaskRecord } from './types.ts';
import {
  created2025,
  created2026,
  detailed2026,
  TASKS_EXTENSION,
  task2025,
  withRelatedTask,
} from './wire-shapes.ts';

/** The first 2025 revision with core tasks. */
const CORE_TASKS_VERSION = '2025-11-25';

/** What the server declares: `capabilities.tasks` on 2025-11-25, the extension on 2026. */
export const TASK_CAPABILITIES_2025: JsonObject = Object.freeze({
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
});
export const TASK_EXTENSION_2026: JsonObject = Object.freeze({ [TASKS_EXTENSION]: {} });

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

/**
 * Whether this `tools/call` runs as a task. Throws when the tool runs only as a task and the
 * request cannot take one: -32021 on 2026, -32601 on 2025 (SEP-1686 tool-level negotiation).
 */
export function runsAsTask(
  def: ToolDefinition,
  params: JsonObject | undefined,
  ctx: RequestContext,
  deps: MethodDeps,
): boolean {
  const support = def.spec.task;
  if (support === undefined || deps.tasks === undefined) return false;
  if (ctx.wire === '2026') {
    if (declaresTasks(ctx.clientCapabilities)) return true;
    if (support === 'required') throw missingTasksExtension(`Tool ${def.name} runs only as a task, which`);
    return false;
  }
  if (isObject(params?.task) && ctx.protocolVersion >= CORE_TASKS_VERSION) return true;
  if (support === 'required') {
    throw new ProtocolError(
      ErrorCode.MethodNotFound,
      `Tool ${def.name} runs only as a task: call it with params.task (protocol ${CORE_TASKS_VERSION} or later)`,
    );
  }
  return false;
}

/** The TTL a 2025 client asked for in `params.task.ttl`, when it is a positive integer. */
function requestedTtl(task: unknown): number | undefined {
  const ttl = isObject(task) ? task.ttl : undefined;
  return typeof ttl === 'number' && Number.isInteger(ttl) && ttl > 0 ? ttl : undefined;
}

/**
 * Runs the tool's `beforeTask` step on the request itself (its input rounds are ordinary
 * MRTR rounds, SEP-2663: resolved before the task exists), then creates the task and answers
 * with the handle.
 */
export async function callAsTask(
  def: ToolDefinition,
  args: unknown,
  params: JsonObject | undefined,
  ctx: RequestContext,
  deps: MethodDeps,
): Promise<JsonObject> {
  const engine = deps.tasks as TaskEngine;
  let seed: Pick<TaskRecord, 'answers' | 'state'> | undefined;
  const before = def.spec.beforeTask;
  if (before) {
    const out = await runWithInput(ctx, params, deps, async () => (await before(args, ctx)) ?? undefined);
    if ('inputRequired' in out) return out.inputRequired;
    seed = { answers: ctx.inputResponses as TaskRecord['answers'], state: ctx.requestState };
  }
  const ttlMs = ctx.wire === '2025' ? requestedTtl(params?.task) : undefined;
  const record = await engine.create(def, args, ctx, { ttlMs, seed });
  return ctx.wire === '2026' ? created2026(record) : created2025(record);
}

/** The engine, once the request may use the tasks surface on its wire. */
function engineFor(ctx: RequestContext, deps: MethodDeps, method: string): TaskEngine {
  if (ctx.wire === '2026') {
    if (!declaresTasks(ctx.clientCapabilities)) throw missingTasksExtension(method);
  } else if (ctx.protocolVersion < CORE_TASKS_VERSION || method === 'tasks/update') {
    throw new ProtocolError(
      ErrorCode.MethodNotFound,
      `Method not found: ${method} (not on protocol ${ctx.protocolVersion})`,
    );
  }
  if (!deps.tasks) throw new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  return deps.tasks;
}

const tasksGet: MethodHandler = async (params, ctx, deps) => {
  const record = await engineFor(ctx, deps, 'tasks/get').owned(params?.taskId, ctx);
  return ctx.wire === '2026' ? detailed2026(record) : task2025(record);
};

const tasksUpdate: MethodHandler = async (params, ctx, deps) => {
  const engine = engineFor(ctx, deps, 'tasks/update');
  const record = await engine.owned(params?.taskId, ctx);
  if (!isObject(params?.inputResponses)) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      'params.inputResponses must be an object of answers by key',
    );
  }
  await engine.answer(record.taskId, params.inputResponses, ctx);
  // SEP-2663: an empty acknowledgement; the next tasks/get shows the effect.
  return {};
};

const tasksCancel: MethodHandler = async (params, ctx, deps) => {
  const engine = engineFor(ctx, deps, 'tasks/cancel');
  const { record, changed } = await engine.cancel(String(params?.taskId ?? ''), ctx);
  // SEP-2663: an empty acknowledgement, idempotent on terminal tasks.
  if (ctx.wire === '2026') return {};
  // SEP-1686: the cancelled task; a task already terminal cannot be cancelled (-32602).
  if (!changed && isTerminal(record.status)) {
    throw new ProtocolError(ErrorCode.InvalidParams, `Task ${record.taskId} is already ${record.status}`, {
      data: { taskId: record.taskId, status: record.status },
    });
  }
  return task2025(record);
};

const tasksList: MethodHandler = async (params, ctx, deps) => {
  const cursor = params?.cursor;
  if (cursor !== undefined && typeof cursor !== 'string') {
    throw new ProtocolError(ErrorCode.InvalidParams, 'params.cursor must be a string');
  }
  const page = await engineFor(ctx, deps, 'tasks/list').list(ctx, cursor, deps.pageSize);
  const result: JsonObject = { tasks: page.tasks.map(task2025) };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return result;
};

/**
 * SEP-1686 `tasks/result`: waits until the task ends and returns what the call would have
 * returned. While the task waits for input, its requests go to the client on this request's
 * stream (tagged with the task) and the answers resume it.
 */
const tasksResult: MethodHandler = async (params, ctx, deps) => {
  const engine = engineFor(ctx, deps, 'tasks/result');
  for (;;) {
    const record = await engine.owned(params?.taskId, ctx);
    const { taskId } = record;
    if (record.status === 'completed') {
      const result = record.result ?? { content: [] };
      return { ...result, _meta: withRelatedTask(result._meta, taskId) };
    }
    if (record.status === 'failed') {
      const error = record.error ?? {};
      throw new ProtocolError(
        typeof error.code === 'number' ? error.code : ErrorCode.InternalError,
        typeof error.message === 'string' ? error.message : 'The task failed',
        { data: error.data },
      );
    }
    if (record.status === 'cancelled') {
      throw new ProtocolError(ErrorCode.InternalError, `Task ${taskId} was cancelled`, { data: { taskId } });
    }
    if (record.status === 'input_required') await deliverInput(engine, record, ctx, deps);
    else await engine.waitForChange(taskId, ctx.signal, record.pollIntervalMs);
    if (ctx.signal.aborted) throw new ProtocolError(ErrorCode.InternalError, 'tasks/result was cancelled');
  }
};

/** Sends a waiting task's input requests to the 2025 client and hands the answers to the task. */
async function deliverInput(engine: TaskEngine, record: TaskRecord, ctx: RequestContext, deps: MethodDeps) {
  const channel = ctx.channel;
  const scope = ctx.session?.id;
  if (!channel || scope === undefined) {
    throw new ProtocolError(ErrorCode.InternalError, 'This transport cannot carry server-to-client requests');
  }
  const entries = Object.entries(record.inputRequests ?? {});
  const answers = await Promise.all(
    entries.map(([, request]) =>
      deps.hub.request(
        scope,
        channel,
        request.method,
        { ...request.params, _meta: withRelatedTask(request.params._meta, record.taskId) },
        { timeoutMs: deps.inputTimeoutMs, signal: ctx.signal },
      ),
    ),
  ).catch((err: unknown) => {
    throw new ProtocolError(
      ErrorCode.InternalError,
      `Task ${record.taskId} is waiting for input: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
  await engine.answer(record.taskId, Object.fromEntries(entries.map(([key], i) => [key, answers[i]])), ctx);
}

/**
 * The `taskIds` of a `subscriptions/listen` request that the stream will follow: the caller's
 * own tasks among them. SEP-2663: asking without the extension is -32021.
 */
export async function listenableTasks(
  requested: unknown,
  ctx: RequestContext,
  deps: MethodDeps,
): Promise<string[]> {
  if (!declaresTasks(ctx.clientCapabilities)) throw missingTasksExtension('Task status notifications');
  if (!Array.isArray(requested) || !requested.every((id) => typeof id === 'string')) {
    throw new ProtocolError(ErrorCode.InvalidParams, 'notifications.taskIds must be an array of task ids');
  }
  return deps.tasks ? deps.tasks.ownedAmong(requested, ctx) : [];
}

export const TASK_METHODS: Readonly<Record<string, MethodHandler>> = {
  'tasks/get': tasksGet,
  'tasks/update': tasksUpdate,
  'tasks/cancel': tasksCancel,
  'tasks/result': tasksResult,
  'tasks/list': tasksList,
};
