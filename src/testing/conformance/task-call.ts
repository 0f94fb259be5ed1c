/**
 * A tool called as a task and followed to its end, on either wire:
 * - 2025-11-25 core tasks (SEP-1686): `params.task` on `tools/call`; the answer is
 *   `{ task }` (CreateTaskResult); `tasks/get` is polled at the task's `pollInterval`; at a
 *   terminal status, or `input_required` (whose requests come on the `tasks/result` stream),
 *   `tasks/result` returns what the call would have returned.
 * - 2026-07-28 tasks extension (SEP-2663): the extension declared in the request's
 *   capabilities; a handle is `resultType: "task"`; `tasks/get` (polled at `pollIntervalMs`)
 *   inlines the result, the error or the input requests (answered with `tasks/update`).
 * The whole run has one deadline; past it the task is cancelled (`tasks/cancel`). What breaks
 * the rules is returned as problems naming their check (task-catalog.ts), beside the answer
 * the call ends with, which the callers judge as they judge a plain call.
 */
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { META, TASKS_EXTENSION } from '../../base/meta-keys.ts';
import { type Answer, describeAnswer } from '../client/answer.ts';
import { answerFor } from '../client/client-answers.ts';
import type { ProbeClient } from '../client/probe-client.ts';
import type { TaskCheckId } from './task-catalog.ts';

/** The statuses both generations define (2025-11-25 §Task Status; SEP-2663). */
export const TASK_STATUSES: readonly string[] = [
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
];
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** The TTL the kit asks for (2025): enough to fetch the result, short enough to leave little behind. */
const TASK_TTL_MS = 60_000;
/** When a task gives no poll interval; and the least the kit waits between polls whatever it says. */
const DEFAULT_POLL_MS = 500;
const MIN_POLL_MS = 10;
const MAX_INPUT_ROUNDS = 8;

export interface TaskProblem {
  check: Exclude<TaskCheckId, 'tasks.result'>;
  message: string;
}

export interface TaskCall {
  /**
   * How the call ended, as a plain call's answer would say it: the final result or error, a
   * timeout (the task was cancelled), or the first answer when no task was created.
   */
  answer: Answer;
  /** The id of the task created, if any. */
  taskId?: string;
  /** Statuses seen, in order (the handle's first). */
  statuses: string[];
  problems: TaskProblem[];
  /** The task waited for input this client does not give (it was cancelled). */
  skipped?: string;
}

/** A tool's `execution.taskSupport` when it takes a task (`optional` or `required`). */
export function taskSupportOf(tool: JsonObject): 'optional' | 'required' | undefined {
  const support = isObject(tool.execution) ? tool.execution.taskSupport : undefined;
  return support === 'optional' || support === 'required' ? support : undefined;
}

/** Whether the server runs `tools/call` as tasks on the client's wire (what it declared). */
export function serverRunsTasks(c: ProbeClient): boolean {
  if (c.wire === '2026') {
    const caps = c.discoverResult?.capabilities;
    return isObject(caps) && isObject(caps.extensions) && isObject(caps.extensions[TASKS_EXTENSION]);
  }
  const tasks = isObject(c.initializeResult?.capabilities)
    ? c.initializeResult.capabilities.tasks
    : undefined;
  const requests = isObject(tasks) ? tasks.requests : undefined;
  return isObject(requests) && isObject(requests.tools) && isObject(requests.tools.call);
}

/** Whether the kit calls this tool as a task: the server runs tasks and the tool takes one. */
export function callsAsTask(c: ProbeClient, tool: JsonObject): boolean {
  return taskSupportOf(tool) !== undefined && serverRunsTasks(c);
}

/** 2026: a request's `_meta` declaring the tasks extension beside the client's own capabilities. */
function taskMeta(c: ProbeClient): JsonObject {
  const caps = c.capabilities();
  const extensions = isObject(caps.extensions) ? caps.extensions : {};
  return {
    [META.clientCapabilities]: { ...caps, extensions: { ...extensions, [TASKS_EXTENSION]: {} } },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What is wrong with a task as the server showed it (CreateTaskResult, tasks/get). */
function shapeProblems(task: JsonObject, wire: string): string[] {
  const problems: string[] = [];
  if (typeof task.taskId !== 'string' || task.taskId === '') problems.push('has no taskId string');
  if (typeof task.createdAt !== 'string') problems.push('has no createdAt timestamp');
  const ttl = wire === '2026' ? 'ttlMs' : 'ttl';
  if (!(ttl in task) || (task[ttl] !== null && typeof task[ttl] !== 'number'))
    problems.push(`has no ${ttl} (a number, or null for unlimited)`);
  const poll = wire === '2026' ? 'pollIntervalMs' : 'pollInterval';
  if (task[poll] !== undefined && typeof task[poll] !== 'number')
    problems.push(`has a ${poll} that is not a number`);
  return problems;
}

function pollMs(task: JsonObject, wire: string, fallback: number): number {
  const hint = task[wire === '2026' ? 'pollIntervalMs' : 'pollInterval'];
  return typeof hint === 'number' && hint > 0 ? Math.max(hint, MIN_POLL_MS) : fallback;
}

/**
 * Calls `name` as a task and follows it to its end within `timeoutMs` (default: the per-call
 * timeout). `required`: the tool says it runs only as a task, so a plain result is a finding.
 */
export async function callToolAsTask(
  c: ProbeClient,
  name: string,
  args: unknown,
  options: { timeoutMs?: number; required?: boolean } = {},
): Promise<TaskCall> {
  const timeoutMs = options.timeoutMs ?? c.callTimeoutMs;
  const deadline = Date.now() + timeoutMs;
  const wire = c.wire ?? '2025';
  const meta = wire === '2026' ? { _meta: taskMeta(c) } : {};
  const problems: TaskProblem[] = [];
  const statuses: string[] = [];
  const first = await c.callTool(name, args, {
    timeoutMs,
    extra: wire === '2026' ? meta : { task: { ttl: TASK_TTL_MS } },
  });
  if (first.kind !== 'result') return { answer: first, statuses, problems };
  const handle =
    wire === '2026'
      ? first.result.resultType === 'task'
        ? first.result
        : undefined
      : isObject(first.result.task)
        ? first.result.task
        : undefined;
  if (handle === undefined) {
    // No task: a refusal (isError), input this client does not give, or a plain result, which
    // a tool that runs only as a task must not answer with.
    const plain = first.result.isError !== true && first.result.resultType !== 'input_required';
    if (options.required === true && plain) {
      problems.push({
        check: 'tasks.create-result',
        message: `${name} requires a task, but its task-augmented call got a plain result instead of a CreateTaskResult`,
      });
    }
    return { answer: first, statuses, problems };
  }
  for (const p of shapeProblems(handle, wire))
    problems.push({ check: 'tasks.create-result', message: `${name}: the CreateTaskResult ${p}` });
  const taskId = typeof handle.taskId === 'string' && handle.taskId !== '' ? handle.taskId : undefined;
  if (taskId === undefined)
    return { answer: { kind: 'unanswered', reason: 'the task has no id to follow' }, statuses, problems };

  const run: TaskCall = {
    answer: { kind: 'unanswered', reason: 'not followed' },
    taskId,
    statuses,
    problems,
  };
  const send = (method: string, params: JsonObject, ms = c.requestTimeoutMs) =>
    c.request(
      method,
      { ...params, ...meta, taskId },
      { timeoutMs: Math.max(1, Math.min(ms, deadline - Date.now())) },
    );
  // Its own timeout: a cancel goes out when the deadline has passed.
  const cancel = async () => {
    await c.request('tasks/cancel', { ...meta, taskId }, { timeoutMs: c.requestTimeoutMs });
  };
  const badStatus = (task: JsonObject, where: string): boolean => {
    statuses.push(String(task.status));
    if (TASK_STATUSES.includes(task.status as string)) return false;
    problems.push({
      check: 'tasks.status',
      message: `${where} for ${name} has status ${JSON.stringify(task.status)}, not one of ${TASK_STATUSES.join(', ')}`,
    });
    return true;
  };
  if (badStatus(handle, 'the CreateTaskResult')) {
    await cancel();
    return { ...run, answer: { kind: 'unanswered', reason: 'the task has a status the kit cannot follow' } };
  }

  let interval = pollMs(handle, wire, DEFAULT_POLL_MS);
  let rounds = 0;
  for (;;) {
    // tasks/get at least once, so a server that cannot answer for its own task is found.
    const wait = Math.min(interval, deadline - Date.now());
    if (wait > 0) await sleep(wait);
    if (Date.now() >= deadline) {
      await cancel();
      return { ...run, answer: { kind: 'timeout', afterMs: timeoutMs } };
    }
    const got = await send('tasks/get', {});
    if (got.kind !== 'result' || got.result.taskId !== taskId) {
      const what =
        got.kind === 'result' ? `the task ${JSON.stringify(got.result.taskId)}` : describeAnswer(got);
      problems.push({ check: 'tasks.get', message: `tasks/get for ${name}'s task ${taskId} got ${what}` });
      await cancel();
      return { ...run, answer: { kind: 'unanswered', reason: 'tasks/get did not answer for the task' } };
    }
    const task = got.result;
    if (badStatus(task, 'tasks/get')) {
      await cancel();
      return {
        ...run,
        answer: { kind: 'unanswered', reason: 'the task has a status the kit cannot follow' },
      };
    }
    interval = pollMs(task, wire, interval);
    const status = task.status as string;
    if (!TERMINAL.has(status) && status !== 'input_required') continue;
    if (wire === '2025') {
      if (status === 'input_required' && c.clientCapabilities.length === 0) {
        await cancel();
        return {
          ...run,
          skipped: 'the task asks the client for input (input_required) this client does not give',
        };
      }
      // Blocks until the end, delivering input requests on its stream (answered by the client).
      const result = await send('tasks/result', {}, deadline - Date.now());
      if (result.kind === 'timeout') {
        await cancel();
        return { ...run, answer: { kind: 'timeout', afterMs: timeoutMs } };
      }
      return { ...run, answer: result };
    }
    if (status === 'completed') {
      if (isObject(task.result))
        return { ...run, answer: { kind: 'result', result: task.result, response: got.response } };
      problems.push({
        check: 'tasks.get',
        message: `tasks/get shows ${name}'s task completed without its result`,
      });
      return { ...run, answer: { kind: 'unanswered', reason: 'the completed task carries no result' } };
    }
    if (status === 'failed') {
      const error = isObject(task.error)
        ? task.error
        : { code: Number.NaN, message: 'a failed task without its error' };
      return { ...run, answer: { kind: 'error', error: error as never, response: got.response } };
    }
    if (status === 'cancelled') {
      const why = typeof task.statusMessage === 'string' ? `: ${task.statusMessage}` : '';
      return { ...run, answer: { kind: 'unanswered', reason: `the server cancelled the task${why}` } };
    }
    const responses = answerInputs(c, task.inputRequests);
    if (responses === undefined || ++rounds > MAX_INPUT_ROUNDS) {
      await cancel();
      return {
        ...run,
        skipped: 'the task asks the client for input (input_required) this client does not give',
      };
    }
    const ack = await send('tasks/update', { inputResponses: responses });
    if (ack.kind !== 'result') return { ...run, answer: ack };
  }
}

/** Answers for every input request of a 2026 task, or undefined when one cannot be answered. */
function answerInputs(c: ProbeClient, requests: unknown): JsonObject | undefined {
  if (!isObject(requests)) return undefined;
  const responses: JsonObject = {};
  for (const [key, r] of Object.entries(requests)) {
    const got = isObject(r)
      ? answerFor(String(r.method), r.params, c.clientCapabilities, c.clientAnswers)
      : undefined;
    if (got === undefined) return undefined;
    responses[key] = got;
  }
  return responses;
}
