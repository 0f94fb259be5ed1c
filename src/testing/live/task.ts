/**
 * A generated call as the tool takes it: as a task when the server runs tasks and the tool
 * has `execution.taskSupport` (task-call.ts follows it to its end), else a plain call. A task
 * rule broken on the way fails the test under that rule's family; the answer the call ends
 * with is judged as a plain call's is (live/calls.ts).
 */
import type { JsonObject } from '../../base/jsonrpc.ts';
import { type Answer, listSome } from '../client/answer.ts';
import type { ProbeClient } from '../client/probe-client.ts';
import { callsAsTask, callToolAsTask, type TaskProblem, taskSupportOf } from '../conformance/task-call.ts';
import { fail } from './calls.ts';
import type { LiveCheckId } from './catalog.ts';

const FAMILY: Record<TaskProblem['check'], LiveCheckId> = {
  'tasks.create-result': 'test.task-create',
  'tasks.status': 'test.task-status',
  'tasks.get': 'test.task-get',
};

export async function liveCall(
  client: ProbeClient,
  tool: JsonObject,
  args: unknown,
): Promise<Answer | { skipped: string }> {
  const name = tool.name as string;
  if (!callsAsTask(client, tool)) return client.callTool(name, args);
  const run = await callToolAsTask(client, name, args, { required: taskSupportOf(tool) === 'required' });
  const first = run.problems[0];
  // The first rule broken, worded as check words it (its problems, listed alike).
  if (first !== undefined)
    fail(
      listSome(run.problems.filter((p) => p.check === first.check).map((p) => p.message)),
      undefined,
      FAMILY[first.check],
    );
  if (run.skipped !== undefined) return { skipped: run.skipped };
  return run.answer;
}
