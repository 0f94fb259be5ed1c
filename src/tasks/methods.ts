/**
 * The tasks surface on both wires, as a MethodSet the dispatcher routes to, plus the
 * TaskLane through which `tools/call` decides whether a call becomes a task (both declared in
 * src/protocol/methods.ts, built here around one TaskEngine by the server assembly).
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
import { TASKS_EXTENSION } from '../base/meta-keys.ts';
import type { MethodDeps, MethodHandler, MethodSet, TaskLane } from '../protocol/methods.ts';
import type { RequestContext } from '../protocol/request-context.ts';
import {
  declaresTasks,
  missingTasksExtension,
  task2025,
  withRelatedTask,
} from '../protocol/wires/task-shapes.ts';
import type { ToolDefinition } from '../registry/define.ts';
import type { TaskEngine } from './engine.ts';
import { isTerminal, type TaskRecord } from './types.ts';

/** What the server declares: `capabilities.tasks` on 2025-11-25, the extension on 2026. */
const TASK_CAPABILITIES_2025: JsonObject = Object.freeze({
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
});
const TASK_EXTENSION_2026: JsonObject = Object.freeze({ [TASKS_EXTENSION]: {} });

/**
 * Whether this `tools/call` runs as a task, as the request's wire negotiates it. Throws when
 * the tool runs only as a task and the request cannot take one: -32021 on 2026, -32601 on 2025
 * (SEP-1686 tool-level negotiation).
 */
function runsAsTask(def: ToolDefinition, params: JsonObject | undefined, ctx: RequestContext): boolean {
  const support = def.spec.task;
  if (support === undefined) return false;
  const tasks = ctx.record.profile.tasks;
  if (tasks.requested(params, ctx)) return true;
  if (support === 'required') throw tasks.required(def.name);
  return false;
}

/**
 * Runs the tool's `beforeTask` step on the request itself (its input rounds are ordinary
 * MRTR rounds, SEP-2663: resolved before the task exists), then creates the task and answers
 * with the handle.
 */
async function callAsTask(
  engine: TaskEngine,
  def: ToolDefinition,
  args: unknown,
  params: JsonObject | undefined,
  ctx: RequestContext,
  deps: MethodDeps,
): Promise<JsonObject> {
  let seed: Pick<TaskRecord, 'answers' | 'state'> | undefined;
  if (def.spec.beforeTask) {
    const asked = await deps.caller.beforeTask(def, args, params, ctx);
    if (asked) return asked;
    seed = { answers: ctx.inputResponses as TaskRecord['answers'], state: ctx.requestState };
  }
  const tasks = ctx.record.profile.tasks;
  const record = await engine.create(def, args, ctx, { ttlMs: tasks.ttlMs(params), seed });
  return tasks.created(record);
}

/** Throws unless the request may use the tasks surface on its wire. */
function checkSurface(ctx: RequestContext, method: string): void {
  ctx.record.profile.tasks.checkSurface(method, ctx);
}

/** A tasks method, with the engine it serves. */
type TaskMethod = (
  engine: TaskEngine,
  params: JsonObject | undefined,
  ctx: RequestContext,
  deps: MethodDeps,
) => Promise<JsonObject>;

const tasksGet: TaskMethod = async (engine, params, ctx) => {
  checkSurface(ctx, 'tasks/get');
  const record = await engine.owned(params?.taskId, ctx);
  return ctx.record.profile.tasks.state(record);
};

const tasksUpdate: TaskMethod = async (engine, params, ctx) => {
  checkSurface(ctx, 'tasks/update');
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

const tasksCancel: TaskMethod = async (engine, params, ctx) => {
  checkSurface(ctx, 'tasks/cancel');
  const { record, changed } = await engine.cancel(String(params?.taskId ?? ''), ctx);
  // SEP-2663: an empty acknowledgement; SEP-1686: the task, unless it had already ended.
  return ctx.record.profile.tasks.cancelled(record, !changed && isTerminal(record.status));
};

const tasksList: TaskMethod = async (engine, params, ctx, deps) => {
  const cursor = params?.cursor;
  if (cursor !== undefined && typeof cursor !== 'string') {
    throw new ProtocolError(ErrorCode.InvalidParams, 'params.cursor must be a string');
  }
  checkSurface(ctx, 'tasks/list');
  const page = await engine.list(ctx, cursor, deps.pageSize);
  const result: JsonObject = { tasks: page.tasks.map(task2025) };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return result;
};

/**
 * SEP-1686 `tasks/result`: waits until the task ends and returns what the call would have
 * returned. While the task waits for input, its requests go to the client on this request's
 * stream (tagged with the task) and the answers resume it.
 */
const tasksResult: TaskMethod = async (engine, params, ctx, deps) => {
  checkSurface(ctx, 'tasks/result');
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
      deps.hub.clientRequests.request(
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
async function listenableTasks(
  engine: TaskEngine,
  requested: unknown,
  ctx: RequestContext,
): Promise<string[]> {
  if (!declaresTasks(ctx.clientCapabilities)) throw missingTasksExtension('Task status notifications');
  if (!Array.isArray(requested) || !requested.every((id) => typeof id === 'string')) {
    throw new ProtocolError(ErrorCode.InvalidParams, 'notifications.taskIds must be an array of task ids');
  }
  return engine.ownedAmong(requested, ctx);
}

const TASK_METHODS: Readonly<Record<string, TaskMethod>> = {
  'tasks/get': tasksGet,
  'tasks/update': tasksUpdate,
  'tasks/cancel': tasksCancel,
  'tasks/result': tasksResult,
  'tasks/list': tasksList,
};

/**
 * The tasks methods around one engine, and what the server declares for them.
 *
 * @example
 * new Dispatcher({ ...options, methodSets: [taskMethods(engine)], tasks: taskLane(engine) });
 */
export function taskMethods(engine: TaskEngine): MethodSet {
  const methods: Record<string, MethodHandler> = {};
  for (const [name, method] of Object.entries(TASK_METHODS)) {
    methods[name] = (params, ctx, deps) => method(engine, params, ctx, deps);
  }
  return {
    methods,
    extensions2026: TASK_EXTENSION_2026,
    coreTasks: TASK_CAPABILITIES_2025,
  };
}

/** How `tools/call` and `subscriptions/listen` reach the engine. */
export function taskLane(engine: TaskEngine): TaskLane {
  return {
    runsAsTask,
    start: (def, args, params, ctx, deps) => callAsTask(engine, def, args, params, ctx, deps),
    listenable: (requested, ctx) => listenableTasks(engine, requested, ctx),
  };
}
