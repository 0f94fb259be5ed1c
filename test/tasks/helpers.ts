/**
 * Shared pieces of the task tests: a 2026 client that declares the tasks extension, and
 * polling `tasks/get` until a status (every wait bounded).
 */
import assert from 'node:assert/strict';
import conformancePlugin from '../../plugins/conformance/index.ts';
import type { JsonObject } from '../../src/index.ts';
import type { TestClient, TestClientOptions } from '../../src/testing/client/test-client.ts';
import { type CheckedClient, startClient } from '../helpers/client.ts';
import { taskTestPlugin } from './fixtures/task-plugin.ts';

export const TASKS = 'io.modelcontextprotocol/tasks';
export const WITH_TASKS = {
  sampling: {},
  elicitation: {},
  roots: { listChanged: true },
  extensions: { [TASKS]: {} },
};
export const TERMINAL = ['completed', 'failed', 'cancelled'];

/** An in-process 2026 client declaring the tasks extension, on the conformance and test tools. */
export function start2026(options: TestClientOptions = {}): Promise<CheckedClient> {
  return startClient({
    plugins: [conformancePlugin, taskTestPlugin],
    wire: '2026',
    capabilities: WITH_TASKS,
    ...options,
  });
}

/** Polls `tasks/get` until `done` holds for the task (at most `timeoutMs`). */
export async function pollTask(
  client: TestClient,
  taskId: string,
  done: (task: JsonObject) => boolean = (t) => TERMINAL.includes(String(t.status)),
  timeoutMs = 10_000,
): Promise<JsonObject> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await client.request('tasks/get', { taskId });
    if (done(task)) return task;
    assert.ok(Date.now() < deadline, `task ${taskId} still ${String(task.status)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const accept = (content: JsonObject) => ({ action: 'accept', content });
