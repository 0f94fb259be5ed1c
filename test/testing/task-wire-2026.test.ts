/**
 * The kit's task checks on the 2026-07-28 wire (the tasks extension), against one-defect
 * servers: our own server with a task tool, and a middleware that breaks one rule of the
 * extension in what the server answers. The official SDK fixtures serve only the 2025 core
 * tasks, so this is the 2026 corpus: each defect fails exactly its check, with its level, the
 * extension's address and a fix; the correct server passes them all.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { z } from 'zod';
import { definePlugin, defineTool, type Middleware, type RunningServer } from '../../src/index.ts';
import { conformanceReport, formatReport } from '../../src/testing/conformance/report.ts';
import { startServer } from '../helpers/client.ts';
import { FAST } from './helpers/fixtures.ts';

const EXT_TASKS = 'https://modelcontextprotocol.github.io/ext-tasks/specification/2026-07-28/tasks.html';

function taskServer(defect?: Middleware) {
  return definePlugin({
    name: 'task-tools',
    register(app) {
      app.add(
        defineTool(
          {
            name: 'count_words',
            description: 'Counts the words of a text; runs as a task when the client can take one',
            input: z.object({ text: z.string().describe('The text') }),
            task: 'optional',
            annotations: { readOnlyHint: true },
          },
          async ({ text }) => `${text.split(/\s+/).filter(Boolean).length} words`,
        ),
      );
      if (defect) app.use(defect);
    },
  });
}

/** Rewrites what `tasks/get` answers (or the call's task handle) on the way out. */
const onTaskGet = (edit: (task: Record<string, unknown>) => Record<string, unknown>): Middleware => ({
  name: 'defect',
  async onRequest(call, next) {
    const result = await next();
    return call.method === 'tasks/get' ? (edit(result) as never) : result;
  },
});

const DEFECTS: Record<string, { middleware: Middleware; check: string; reason: RegExp }> = {
  'a status outside the extension': {
    middleware: onTaskGet((task) => ({ ...task, status: 'running' })),
    check: 'tasks.status',
    reason: /status "running", not one of working, input_required, completed, failed, cancelled/,
  },
  'tasks/get answers for another task': {
    middleware: onTaskGet((task) => ({ ...task, taskId: 'someone-else' })),
    check: 'tasks.get',
    reason: /tasks\/get for count_words's task .* got the task "someone-else"/,
  },
  'a handle without createdAt': {
    middleware: {
      name: 'defect',
      async onCallTool(_call, next) {
        const { createdAt: _createdAt, ...rest } = await next();
        return rest;
      },
    },
    check: 'tasks.create-result',
    reason: /the CreateTaskResult has no createdAt timestamp/,
  },
};

describe('task checks on the 2026 wire', () => {
  const servers: RunningServer[] = [];
  after(() => Promise.all(servers.map((s) => s.close())));
  const reportOf = async (defect?: Middleware) => {
    const server = await startServer({ plugins: [taskServer(defect)] });
    servers.push(server);
    return conformanceReport(server, { ...FAST, wire: '2026' });
  };

  test('the correct server passes every task check', async () => {
    const report = await reportOf();
    const tasks = report.checks.filter(
      (c) => c.id.startsWith('tasks.') && c.id !== 'tasks.required-without-task',
    );
    assert.deepEqual(
      tasks.map((c) => [c.id, c.status]),
      [
        ['tasks.create-result', 'pass'],
        ['tasks.status', 'pass'],
        ['tasks.get', 'pass'],
        ['tasks.result', 'pass'],
      ],
      formatReport(report),
    );
  });

  for (const [name, { middleware, check, reason }] of Object.entries(DEFECTS)) {
    test(`${name}: ${check} fails with its level, the extension's address and a fix`, async () => {
      const report = await reportOf(middleware);
      const failed = report.checks.filter((c) => c.status === 'fail').map((c) => c.id);
      assert.deepEqual(failed, [check], formatReport(report));
      const verdict = report.checks.find((c) => c.id === check);
      assert.match(verdict?.reason ?? '', reason);
      assert.equal(verdict?.level, 'MUST');
      assert.equal(verdict?.spec.replace(/#.*$/, ''), EXT_TASKS);
      assert.ok((verdict?.fix ?? '').length > 20, 'a fix is given');
    });
  }
});
