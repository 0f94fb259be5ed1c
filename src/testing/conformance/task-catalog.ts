/**
 * The checks of a tool called as a task (2025-11-25 core tasks, SEP-1686; the 2026 tasks
 * extension, SEP-2663): the handle the call returns, the statuses the task goes through,
 * `tasks/get` for it, and the result it ends with. `check` records them under these ids;
 * the generated tests of `test` fail under the families that reuse them (live/catalog.ts).
 */
import type { CheckInfo } from './check-sources.ts';
import { TASKS } from './check-sources.ts';

export const TASK_CHECKS = {
  'tasks.create-result': {
    title: 'a task-augmented call returns a CreateTaskResult',
    level: 'MUST',
    source: TASKS('creating-tasks', 'Tasks §Creating Tasks (receivers MUST return a CreateTaskResult)'),
    fix: 'answer tools/call with params.task (2026: with the tasks extension declared) with { task: { taskId, status, createdAt, ttl, pollInterval } } (2026: resultType "task" and the task fields), never the plain result of a tool that requires a task',
  },
  'tasks.status': {
    title: 'task statuses are working, input_required, completed, failed or cancelled',
    level: 'MUST',
    source: TASKS('task-status', 'Tasks §Task Status'),
    fix: 'report a task as one of working, input_required, completed, failed, cancelled (a terminal one never changes)',
  },
  'tasks.get': {
    title: 'tasks/get answers for the task a call created',
    level: 'MUST',
    source: TASKS('getting-tasks', 'Tasks §Getting Tasks'),
    fix: 'serve tasks/get for every taskId you hand out (for its TTL) with that task, its status and, on 2026, its result or error once it ends',
  },
  'tasks.result': {
    title: 'a task ends with a valid tool result',
    level: 'MUST',
    source: TASKS(
      'retrieving-task-results',
      'Tasks §Retrieving Task Results (exactly what the request would have returned)',
    ),
    fix: 'end a task with the tools/call result the call would have returned: a content array, and structuredContent valid against the outputSchema',
  },
} as const satisfies Record<string, CheckInfo>;

export type TaskCheckId = keyof typeof TASK_CHECKS;
