/**
 * The 2026 tasks extension (SEP-2663), in-process: negotiation per request, server-directed
 * creation, the task lifecycle (working → completed / failed / cancelled), input rounds
 * through `tasks/update`, MRTR rounds before the task, ownership, TTL and the `notifications/
 * tasks` stream. Every message is checked against the 2026-07-28 schema (extension messages
 * against the generic envelope, as the official harness does).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import conformancePlugin from '../../plugins/conformance/index.ts';
import { buildMcpServer } from '../../src/assembly/server.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { ErrorCode, type JsonObject } from '../../src/index.ts';
import { createLocalTaskBus, createMemoryTaskStore } from '../../src/tasks/memory-store.ts';
import { wireKey } from '../../src/tasks/outcome.ts';
import type { TestClientError } from '../../src/testing/client/test-client.ts';
import { handleOf, startClient, startServer } from '../helpers/client.ts';
import { abortReasons, taskTestPlugin } from './fixtures/task-plugin.ts';
import { accept, pollTask, start2026, TASKS, WITH_TASKS } from './helpers.ts';

const code = (expected: number) => (e: TestClientError) => e.code === expected;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('2026 tasks: negotiation', () => {
  test('server/discover declares the extension under capabilities.extensions, not capabilities.tasks', async () => {
    const client = await start2026();
    const discover = await client.request('server/discover');
    const capabilities = discover.capabilities as JsonObject;
    assert.deepEqual((capabilities.extensions as JsonObject)[TASKS], {});
    assert.equal(capabilities.tasks, undefined);
    await client.close();
  });

  test('without the extension: an optional tool runs as a plain call, a required one is -32021', async () => {
    const client = await start2026({ capabilities: { elicitation: {} } });
    const plain = await client.request('tools/call', { name: 'slow_compute', arguments: { seconds: 0 } });
    assert.equal(plain.resultType, 'complete');
    assert.equal(plain.taskId, undefined);
    assert.match(String((plain.content as JsonObject[])[0]?.text), /^Computed/);
    await assert.rejects(
      client.request('tools/call', { name: 'failing_job', arguments: {} }),
      (e: TestClientError) =>
        e.code === ErrorCode.MissingRequiredClientCapability &&
        JSON.stringify(e.data) === JSON.stringify({ requiredCapabilities: { extensions: { [TASKS]: {} } } }),
    );
    for (const [method, params] of [
      ['tasks/get', { taskId: 'x' }],
      ['tasks/update', { taskId: 'x', inputResponses: {} }],
      ['tasks/cancel', { taskId: 'x' }],
    ] as const) {
      await assert.rejects(client.request(method, params), code(ErrorCode.MissingRequiredClientCapability));
    }
    await client.close();
  });

  test('the extension is read per request: one request declaring it gets a task', async () => {
    const client = await start2026({ capabilities: {} });
    const created = await client.request('tools/call', {
      name: 'slow_compute',
      arguments: { seconds: 0.2 },
      _meta: { 'io.modelcontextprotocol/clientCapabilities': WITH_TASKS },
    });
    assert.equal(created.resultType, 'task');
    await client.close();
  });

  test('tasks/result and tasks/list are gone on 2026 (-32601); a legacy task param does not make a task', async () => {
    const client = await start2026();
    for (const method of ['tasks/result', 'tasks/list']) {
      await assert.rejects(client.request(method, { taskId: 'x' }), code(ErrorCode.MethodNotFound));
    }
    const greet = await client.request('tools/call', {
      name: 'greet',
      arguments: { name: 'Ada' },
      task: { ttl: 60_000 },
    });
    assert.equal(greet.resultType, 'complete');
    assert.deepEqual(greet.content, [{ type: 'text', text: 'Hello, Ada!' }]);
    await client.close();
  });
});

describe('2026 tasks: lifecycle', () => {
  test('a task-enabled tool answers with a flat CreateTaskResult that tasks/get finds at once', async () => {
    const client = await start2026();
    const created = await client.request('tools/call', { name: 'slow_compute', arguments: { seconds: 0.3 } });
    assert.equal(created.resultType, 'task');
    assert.equal(created.status, 'working');
    assert.match(String(created.createdAt), ISO);
    assert.match(String(created.lastUpdatedAt), ISO);
    assert.equal(created.ttlMs, 3_600_000);
    assert.equal(created.pollIntervalMs, 1000);
    for (const absent of [
      'task',
      'result',
      'error',
      'inputRequests',
      'requestState',
      'ttl',
      'pollInterval',
    ]) {
      assert.equal(absent in created, false, `no ${absent} on CreateTaskResult`);
    }
    const taskId = String(created.taskId);
    const working = await client.request('tasks/get', { taskId });
    assert.equal(working.taskId, taskId);
    assert.equal(working.resultType, 'complete');
    assert.equal(working.result, undefined);
    const done = await pollTask(client, taskId);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.result, { content: [{ type: 'text', text: 'Computed the result in 0.3 s' }] });
    assert.equal('requestState' in done, false);
    await client.close();
  });

  test('a tool error ends completed with isError; a JSON-RPC error ends failed with the error', async () => {
    const client = await start2026();
    const failing = await client.request('tools/call', { name: 'failing_job', arguments: {} });
    const toolError = await pollTask(client, String(failing.taskId));
    assert.equal(toolError.status, 'completed');
    assert.equal((toolError.result as JsonObject).isError, true);
    const crashing = await client.request('tools/call', { name: 'protocol_error_job', arguments: {} });
    const failed = await pollTask(client, String(crashing.taskId));
    assert.equal(failed.status, 'failed');
    assert.equal(failed.result, undefined);
    assert.deepEqual(failed.error, {
      code: ErrorCode.InternalError,
      message: 'The job crashed: its worker went away',
    });
    await client.close();
  });

  test('tasks/cancel aborts the running handler; the ack is empty and repeats on a terminal task', async () => {
    const client = await start2026();
    const before = abortReasons.length;
    const created = await client.request('tools/call', { name: 'wait_for_abort', arguments: {} });
    const taskId = String(created.taskId);
    const ack = await client.request('tasks/cancel', { taskId });
    assert.deepEqual(Object.keys(ack).sort(), ['_meta', 'resultType']);
    const cancelled = await pollTask(client, taskId);
    assert.equal(cancelled.status, 'cancelled');
    await waitUntil(() => abortReasons.length > before);
    assert.equal(abortReasons[before], 'the task was cancelled');
    // The handler returned after its abort: the task stays cancelled.
    assert.equal((await client.request('tasks/get', { taskId })).status, 'cancelled');
    const again = await client.request('tasks/cancel', { taskId });
    assert.equal(again.resultType, 'complete');
    await client.close();
  });

  test('an unknown task id is -32602 on every tasks method', async () => {
    const client = await start2026();
    for (const [method, params] of [
      ['tasks/get', { taskId: 'no-such-task' }],
      ['tasks/update', { taskId: 'no-such-task', inputResponses: {} }],
      ['tasks/cancel', { taskId: 'no-such-task' }],
      ['tasks/get', {}],
    ] as const) {
      await assert.rejects(client.request(method, params), code(ErrorCode.InvalidParams));
    }
    await client.close();
  });

  test('a progress message becomes the statusMessage of the working task', async () => {
    const client = await start2026();
    const created = await client.request('tools/call', { name: 'report_progress', arguments: {} });
    const task = await pollTask(client, String(created.taskId), (t) => t.statusMessage === 'halfway there');
    assert.equal(task.status, 'working');
    assert.equal((await pollTask(client, String(created.taskId))).status, 'completed');
    // 2026 sends no progress notifications for tasks (SEP-2663).
    assert.equal(client.notifications.filter((n) => n.method === 'notifications/progress').length, 0);
    await client.close();
  });
});

describe('2026 tasks: input', () => {
  test('input_required surfaces the requests; tasks/update resumes the handler to completion', async () => {
    const client = await start2026();
    const created = await client.request('tools/call', {
      name: 'confirm_delete',
      arguments: { filename: 'a.txt' },
    });
    const taskId = String(created.taskId);
    const waiting = await pollTask(client, taskId, (t) => t.status === 'input_required');
    const requests = waiting.inputRequests as Record<string, JsonObject>;
    assert.deepEqual(Object.keys(requests), ['confirm']);
    assert.equal(requests.confirm?.method, 'elicitation/create');
    // Unknown keys and malformed answers are ignored: the task keeps waiting.
    const ignored = await client.request('tasks/update', {
      taskId,
      inputResponses: { nope: accept({}), confirm: 12 },
    });
    assert.deepEqual(Object.keys(ignored).sort(), ['_meta', 'resultType']);
    assert.equal((await client.request('tasks/get', { taskId })).status, 'input_required');
    await assert.rejects(client.request('tasks/update', { taskId }), code(ErrorCode.InvalidParams));
    await client.request('tasks/update', { taskId, inputResponses: { confirm: accept({ confirm: true }) } });
    const done = await pollTask(client, taskId);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.result, { content: [{ type: 'text', text: 'Deleted a.txt' }] });
    await client.close();
  });

  test('a partial update keeps the task waiting with only the unanswered key', async () => {
    const client = await start2026();
    const created = await client.request('tools/call', { name: 'multi_input', arguments: {} });
    const taskId = String(created.taskId);
    await pollTask(client, taskId, (t) => t.status === 'input_required');
    await client.request('tasks/update', { taskId, inputResponses: { first: accept({ name: 'one' }) } });
    const partial = await client.request('tasks/get', { taskId });
    assert.equal(partial.status, 'input_required');
    assert.deepEqual(Object.keys(partial.inputRequests as JsonObject), ['second']);
    await client.request('tasks/update', { taskId, inputResponses: { second: accept({ name: 'two' }) } });
    const done = await pollTask(client, taskId);
    assert.deepEqual(done.result, { content: [{ type: 'text', text: 'Answers: one, two' }] });
    await client.close();
  });

  test('keys are unique over the task: the same handler key in round 2 is shown as key~2', async () => {
    assert.equal(wireKey('q', 1), 'q');
    assert.equal(wireKey('q', 2), 'q~2');
    assert.equal(wireKey('q~2', 1), 'q~2~1');
    const client = await start2026();
    const taskId = String((await client.request('tools/call', { name: 'ask_twice', arguments: {} })).taskId);
    const first = await pollTask(client, taskId, (t) => t.status === 'input_required');
    assert.deepEqual(Object.keys(first.inputRequests as JsonObject), ['q']);
    await client.request('tasks/update', { taskId, inputResponses: { q: accept({ name: 'Alice' }) } });
    const second = await pollTask(
      client,
      taskId,
      (t) => (t.inputRequests as JsonObject | undefined)?.['q~2'] !== undefined,
    );
    // The answered key of round 1 is not accepted again.
    await client.request('tasks/update', { taskId, inputResponses: { q: accept({ name: 'Mallory' }) } });
    assert.equal((await client.request('tasks/get', { taskId })).status, 'input_required');
    assert.equal(second.status, 'input_required');
    await client.request('tasks/update', { taskId, inputResponses: { 'q~2': accept({ name: 'Bob' }) } });
    const done = await pollTask(client, taskId);
    assert.deepEqual(done.result, { content: [{ type: 'text', text: 'first=Alice second=Bob' }] });
    await client.close();
  });

  test('an input round needing a capability the request did not declare fails the task with -32021', async () => {
    const client = await start2026({ capabilities: { extensions: { [TASKS]: {} } } });
    const taskId = String(
      (await client.request('tools/call', { name: 'confirm_delete', arguments: { filename: 'b.txt' } }))
        .taskId,
    );
    const failed = await pollTask(client, taskId);
    assert.equal(failed.status, 'failed');
    assert.equal((failed.error as JsonObject).code, ErrorCode.MissingRequiredClientCapability);
    await client.close();
  });

  test('MRTR rounds before the task: input-required first, then a task that uses the answer', async () => {
    const client = await start2026();
    const round1 = await client.request('tools/call', { name: 'test_tool_with_task', arguments: {} });
    assert.equal(round1.resultType, 'input_required');
    assert.equal('taskId' in round1, false);
    const round2 = await client.request('tools/call', {
      name: 'test_tool_with_task',
      arguments: {},
      inputResponses: { user_name: accept({ name: 'Alice' }) },
      requestState: round1.requestState,
    });
    assert.equal(round2.resultType, 'task');
    assert.equal('requestState' in round2, false);
    const done = await pollTask(client, String(round2.taskId));
    assert.deepEqual(done.result, { content: [{ type: 'text', text: 'Hello, Alice!' }] });
    await client.close();
  });
});

describe('2026 tasks: ownership and retention', () => {
  test('a task belongs to the identity that created it: anyone else gets -32602 as for an unknown id', async () => {
    const server = await startServer({ plugins: [conformancePlugin, taskTestPlugin] });
    const alice = await start2026({ server, identity: { clientId: 'alice', scopes: [] } });
    const bob = await start2026({ server, identity: { clientId: 'bob', scopes: [] } });
    const anonymous = await start2026({ server });
    const taskId = String((await alice.request('tools/call', { name: 'who_am_i', arguments: {} })).taskId);
    for (const other of [bob, anonymous]) {
      await assert.rejects(other.request('tasks/get', { taskId }), code(ErrorCode.InvalidParams));
      await assert.rejects(other.request('tasks/cancel', { taskId }), code(ErrorCode.InvalidParams));
      await assert.rejects(
        other.request('tasks/update', { taskId, inputResponses: {} }),
        code(ErrorCode.InvalidParams),
      );
    }
    const done = await pollTask(alice, taskId);
    assert.deepEqual(done.result, { content: [{ type: 'text', text: 'client=alice session=none' }] });
    await bob.close();
    await anonymous.close();
    await alice.close();
    await server.close();
  });

  test('a task is kept for its TTL from creation, then gone (-32602) (fake clock)', async () => {
    let now = Date.parse('2026-08-01T00:00:00Z');
    const clock = () => now;
    const settings = parseSettings({ MCP_LOG_LEVEL: 'silent', MCP_TASK_TTL_MS: '60000' });
    const store = createMemoryTaskStore({ now: clock });
    const server = await buildMcpServer({
      settings,
      logger: pino({ level: 'silent' }),
      plugins: [
        { definition: conformancePlugin as never, settings: {} },
        { definition: taskTestPlugin as never, settings: {} },
      ],
      tasks: { store, bus: createLocalTaskBus(), now: clock },
    });
    const client = await startClient({ server: handleOf(server), wire: '2026', capabilities: WITH_TASKS });
    const created = await client.request('tools/call', { name: 'slow_compute', arguments: { seconds: 0 } });
    assert.equal(created.ttlMs, 60_000);
    assert.equal(created.createdAt, '2026-08-01T00:00:00.000Z');
    const taskId = String(created.taskId);
    await pollTask(client, taskId);
    now += 59_999;
    assert.equal((await client.request('tasks/get', { taskId })).status, 'completed');
    now += 1;
    await assert.rejects(client.request('tasks/get', { taskId }), code(ErrorCode.InvalidParams));
    await client.close();
    await server.close();
    await store.close();
  });
});

describe('2026 tasks: shutdown', () => {
  test('a server that stops marks the tasks still running failed, with a message saying so', async () => {
    const store = createMemoryTaskStore();
    const server = await buildMcpServer({
      settings: parseSettings({ MCP_LOG_LEVEL: 'silent' }),
      logger: pino({ level: 'silent' }),
      plugins: [{ definition: taskTestPlugin as never, settings: {} }],
      // No close(): the store outlives the server, as Redis does.
      tasks: { store, bus: createLocalTaskBus() },
    });
    const client = await startClient({ server: handleOf(server), wire: '2026', capabilities: WITH_TASKS });
    const taskId = String(
      (await client.request('tools/call', { name: 'wait_for_abort', arguments: {} })).taskId,
    );
    await client.close();
    await server.close();
    const record = await store.get(taskId);
    assert.equal(record?.status, 'failed');
    assert.deepEqual(record?.error, {
      code: ErrorCode.InternalError,
      message: 'the server stopped before the task finished',
    });
    await store.close();
  });
});

async function waitUntil(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    assert.ok(Date.now() < deadline, 'timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
