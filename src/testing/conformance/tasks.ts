/**
 * The task checks of the conformance report (2025-11-25 core tasks, SEP-1686; the 2026 tasks
 * extension, SEP-2663): a tool that requires a task refuses a plain call (-32601; on 2026 the
 * missing-capability error, as the extension was not declared), and a
 * read-only tool that takes a task, called as one, returns a valid handle, goes through the
 * spec's statuses, is served by `tasks/get`, and ends with a valid tool result.
 */
import { ErrorCode } from '../../base/errors.ts';
import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { describeAnswer, type ProbeClient } from '../client/probe-client.ts';
import { validateValue } from '../schema/json-schema.ts';
import { safeArguments } from './features.ts';
import type { Recorder } from './recorder.ts';
import { callToolAsTask, serverRunsTasks, taskSupportOf } from './task-call.ts';
import type { TaskCheckId } from './task-catalog.ts';

/** At most this many tools are called by each task check. */
const MAX_TASK_CALLS = 10;
const RUN_CHECKS = ['tasks.create-result', 'tasks.status', 'tasks.get', 'tasks.result'] as const;

export async function checkTasks(c: ProbeClient, rec: Recorder, tools: JsonObject[]): Promise<void> {
  await checkRequiredTasks(c, rec, tools);
  await checkTaskRuns(c, rec, tools);
}

/**
 * Calls each tool that requires a task without one: a conformant server refuses with -32601
 * before running anything (so this is the one call `check` makes to a tool that is not
 * annotated read-only).
 */
async function checkRequiredTasks(c: ProbeClient, rec: Recorder, tools: JsonObject[]): Promise<void> {
  const required = tools.filter((t) => typeof t.name === 'string' && taskSupportOf(t) === 'required');
  if (required.length === 0) {
    rec.notRun('tasks.required-without-task', 'no tool has execution.taskSupport "required"');
    return;
  }
  // 2026: a plain request is one that does not declare the tasks extension, which is a missing
  // client capability (SEP-2663 §Capability Negotiation), not an unknown method.
  const code = c.wire === '2026' ? ErrorCode.MissingRequiredClientCapability : ErrorCode.MethodNotFound;
  const problems: string[] = [];
  for (const t of required.slice(0, MAX_TASK_CALLS)) {
    const answer = await c.callTool(t.name as string, safeArguments(t) ?? {}, {
      timeoutMs: c.requestTimeoutMs,
    });
    if (answer.kind !== 'error' || answer.error.code !== code)
      problems.push(`${t.name} called without a task got ${describeAnswer(answer)} (expected ${code})`);
  }
  rec.expect('tasks.required-without-task', problems, required.map((t) => t.name).join(', '));
}

/**
 * Calls read-only tools that take a task (`readOnlyHint: true`, as for structuredContent: a
 * tool without it may write) as tasks, with their first valid example or simplest input.
 */
async function checkTaskRuns(c: ProbeClient, rec: Recorder, tools: JsonObject[]): Promise<void> {
  const notRun = (why: string) => {
    for (const id of RUN_CHECKS) rec.notRun(id, why);
  };
  const takers = tools.filter((t) => typeof t.name === 'string' && taskSupportOf(t) !== undefined);
  if (takers.length === 0) return notRun('no tool has execution.taskSupport "optional" or "required"');
  if (!serverRunsTasks(c)) {
    return notRun(
      c.wire === '2026'
        ? 'the server does not declare the io.modelcontextprotocol/tasks extension'
        : 'the server does not declare capabilities.tasks.requests.tools.call',
    );
  }
  const callable = takers.filter(
    (t) => isObject(t.annotations) && t.annotations.readOnlyHint === true && safeArguments(t) !== undefined,
  );
  if (callable.length === 0) return notRun('no read-only tool that takes a task has a valid input');

  const found: Record<TaskCheckId, string[]> = {
    'tasks.create-result': [],
    'tasks.status': [],
    'tasks.get': [],
    'tasks.result': [],
  };
  const notJudged: string[] = [];
  let created = 0;
  let judged = 0;
  for (const t of callable.slice(0, MAX_TASK_CALLS)) {
    const name = t.name as string;
    const run = await callToolAsTask(c, name, safeArguments(t), {
      required: taskSupportOf(t) === 'required',
    });
    for (const p of run.problems) found[p.check].push(p.message);
    if (run.taskId !== undefined) created++;
    const a = run.answer;
    // No task (a plain call's checks judge that), input the kit does not give, or a rule broken above.
    if (run.taskId === undefined || run.skipped !== undefined || a.kind === 'unanswered') {
      if (run.skipped !== undefined) notJudged.push(`${name} (${run.skipped})`);
      continue;
    }
    if (a.kind === 'timeout') {
      notJudged.push(`${name} (no end within ${a.afterMs / 1000} s: cancelled)`);
      continue;
    }
    if (a.kind === 'error' && a.error.code === ErrorCode.MissingRequiredClientCapability) continue;
    if (a.kind !== 'result') {
      found['tasks.result'].push(`${name}: the task ended with ${describeAnswer(a)}`);
      continue;
    }
    judged++;
    if (!Array.isArray(a.result.content)) {
      found['tasks.result'].push(`${name}: the task's result has no content array`);
      continue;
    }
    if (a.result.isError === true || !isObject(t.outputSchema)) continue;
    if (!isObject(a.result.structuredContent)) {
      found['tasks.result'].push(`${name}: no structuredContent although it declares an outputSchema`);
      continue;
    }
    const issues = validateValue(t.outputSchema, a.result.structuredContent);
    if (issues.length > 0) found['tasks.result'].push(`${name}: ${issues.slice(0, 3).join(', ')}`);
  }
  const note = notJudged.length > 0 ? `not judged: ${notJudged.join('; ')}` : undefined;
  for (const id of ['tasks.create-result', 'tasks.status', 'tasks.get'] as const) {
    if (found[id].length === 0 && created === 0) rec.notRun(id, 'no call created a task');
    else rec.expect(id, found[id], `${created} tasks followed`);
  }
  if (found['tasks.result'].length === 0 && judged === 0)
    rec.notRun('tasks.result', note ?? 'no task ended with a result');
  else rec.expect('tasks.result', found['tasks.result'], note);
}
