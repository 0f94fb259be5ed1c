/**
 * The 2025-11-25 core tasks (SEP-1686) for 2025-wire clients: `capabilities.tasks`,
 * `execution.taskSupport` on tools, task-augmented `tools/call`, `tasks/get`, `tasks/result`
 * (which delivers input rounds as server-to-client requests tagged with the task),
 * `tasks/list`, `tasks/cancel`, -32601 for a required tool called without a task. In-process
 * with every message checked against the 2025-11-25 schema, then with the official SDK client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import conformancePlugin from '../../plugins/conformance/index.ts';
import { ErrorCode, type JsonObject } from '../../src/index.ts';
import type { TestClientError } from '../../src/testing/client/test-client.ts';
import { type Fixture, startFixture } from '../conformance/http-fixture.ts';
import { startClient, startServer } from '../helpers/client.ts';
import { taskTestPlugin } from './fixtures/task-plugin.ts';

const RELATED = 'io.modelcontextprotocol/related-task';
const code = (expected: number) => (e: TestClientError) => e.code === expected;
const plugins = [conformancePlugin, taskTestPlugin];

describe('2025-11-25 core tasks, in-process', () => {
  test('initialize declares capabilities.tasks on 2025-11-25 only; tools carry execution.taskSupport', async () => {
    const client = await startClient({ plugins });
    assert.deepEqual((client.initializeResult?.capabilities as JsonObject | undefined)?.tasks, {
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const tools = await client.listTools();
    const support = (name: string) =>
      (tools.find((t) => t.name === name)?.execution as JsonObject | undefined)?.taskSupport;
    assert.equal(support('slow_compute'), 'optional');
    assert.equal(support('failing_job'), 'required');
    assert.equal(support('greet'), undefined);
    await client.close();
    const older = await startClient({ plugins, protocolVersion: '2025-06-18' });
    assert.equal((older.initializeResult?.capabilities as JsonObject | undefined)?.tasks, undefined);
    await assert.rejects(older.request('tasks/list'), code(ErrorCode.MethodNotFound));
    await older.close();
  });

  test('a required tool called without params.task is -32601; an optional one runs as a plain call', async () => {
    const client = await startClient({ plugins });
    await assert.rejects(
      client.request('tools/call', { name: 'failing_job', arguments: {} }),
      code(ErrorCode.MethodNotFound),
    );
    assert.match(await client.callText('slow_compute', { seconds: 0 }), /^Computed/);
    // tasks/update is the 2026 extension's, not part of 2025-11-25.
    await assert.rejects(
      client.request('tasks/update', { taskId: 'x', inputResponses: {} }),
      code(ErrorCode.MethodNotFound),
    );
    await client.close();
  });

  test('task-augmented call: CreateTaskResult, tasks/get, tasks/result with related-task, tasks/list', async () => {
    const client = await startClient({ plugins });
    const created = await client.request('tools/call', {
      name: 'slow_compute',
      arguments: { seconds: 0.2, label: 'sum' },
      task: { ttl: 30_000 },
    });
    const task = created.task as JsonObject;
    assert.equal(task.status, 'working');
    assert.equal(task.ttl, 30_000, 'the TTL the client asked for, below the server maximum');
    const longer = await client.request('tools/call', {
      name: 'slow_compute',
      arguments: { seconds: 0 },
      task: { ttl: 86_400_000 },
    });
    assert.equal((longer.task as JsonObject).ttl, 3_600_000, 'never more than MCP_TASK_TTL_MS');
    assert.equal(task.pollInterval, 1000);
    const taskId = String(task.taskId);
    const got = await client.request('tasks/get', { taskId });
    assert.equal(got.taskId, taskId);
    assert.equal(got.ttlMs, undefined, '2025 names: ttl and pollInterval');
    const result = await client.request('tasks/result', { taskId });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Computed sum in 0.2 s' }]);
    assert.deepEqual((result._meta as JsonObject)[RELATED], { taskId });
    const listed = await client.request('tasks/list');
    const mine = (listed.tasks as JsonObject[]).map((t) => t.taskId);
    assert.equal(mine.length, 2);
    assert.equal(mine[1], taskId, 'newest first');
    assert.equal((listed.tasks as JsonObject[])[1]?.status, 'completed');
    // A terminal task cannot be cancelled on 2025-11-25 (-32602).
    await assert.rejects(client.request('tasks/cancel', { taskId }), code(ErrorCode.InvalidParams));
    // Its status changes reached the session's stream.
    const statuses = client.notifications.filter((n) => n.method === 'notifications/tasks/status');
    assert.equal((statuses.at(-1)?.params as JsonObject | undefined)?.status, 'completed');
    await client.close();
  });

  test('tasks/cancel returns the cancelled task and stops the handler; tasks/result then fails', async () => {
    const client = await startClient({ plugins });
    const created = await client.request('tools/call', { name: 'wait_for_abort', arguments: {}, task: {} });
    const taskId = String((created.task as JsonObject).taskId);
    const cancelled = await client.request('tasks/cancel', { taskId });
    assert.equal(cancelled.taskId, taskId);
    assert.equal(cancelled.status, 'cancelled');
    await assert.rejects(client.request('tasks/result', { taskId }), code(ErrorCode.InternalError));
    await client.close();
  });

  test('tasks/result delivers the input round as a server-to-client request tagged with the task', async () => {
    const asked: JsonObject[] = [];
    const client = await startClient({
      plugins,
      onElicit: (params) => {
        asked.push(params);
        return { action: 'accept', content: { confirm: true } };
      },
    });
    const created = await client.request('tools/call', {
      name: 'confirm_delete',
      arguments: { filename: 'c.txt' },
      task: {},
    });
    const taskId = String((created.task as JsonObject).taskId);
    const result = await client.request('tasks/result', { taskId });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Deleted c.txt' }]);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]?.message, 'Delete c.txt?');
    assert.deepEqual((asked[0]?._meta as JsonObject | undefined)?.[RELATED], { taskId });
    await client.close();
  });

  test('progress inside a task reaches the session tagged with the task (the token stays valid)', async () => {
    const client = await startClient({ plugins });
    const created = await client.request('tools/call', {
      name: 'slow_compute',
      arguments: { seconds: 0.2 },
      task: {},
      _meta: { progressToken: 'p-1' },
    });
    const taskId = String((created.task as JsonObject).taskId);
    await client.request('tasks/result', { taskId });
    const progress = client.notifications.filter((n) => n.method === 'notifications/progress');
    assert.ok(progress.length > 0);
    const params = progress[0]?.params as JsonObject;
    assert.equal(params.progressToken, 'p-1');
    assert.deepEqual((params._meta as JsonObject)[RELATED], { taskId });
    await client.close();
  });

  test('a task belongs to the session that created it (no auth): another session gets -32602', async () => {
    const server = await startServer({ plugins });
    const first = await startClient({ server });
    const second = await startClient({ server });
    const created = await first.request('tools/call', {
      name: 'slow_compute',
      arguments: { seconds: 0 },
      task: {},
    });
    const taskId = String((created.task as JsonObject).taskId);
    await assert.rejects(second.request('tasks/get', { taskId }), code(ErrorCode.InvalidParams));
    assert.deepEqual((await second.request('tasks/list')).tasks, []);
    await first.request('tasks/result', { taskId });
    await second.close();
    await first.close();
    await server.close();
  });
});

describe('2025-11-25 core tasks with the official SDK client', () => {
  let fixture: Fixture;
  before(async () => {
    fixture = await startFixture({ plugins: [taskTestPlugin as never] });
  });
  after(async () => {
    await fixture?.close();
  });

  test('callToolStream: task created, input answered through tasks/result, result delivered', async () => {
    const client = new Client({ name: 'sdk-tasks', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { confirm: true },
    }));
    await client.connect(new StreamableHTTPClientTransport(new URL(fixture.url)));
    await client.listTools();
    const kinds: string[] = [];
    let text: string | undefined;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'confirm_delete', arguments: { filename: 'sdk.txt' } },
      CallToolResultSchema,
    )) {
      kinds.push(message.type);
      if (message.type === 'error') throw message.error;
      if (message.type === 'result') text = (message.result.content[0] as { text?: string }).text;
    }
    assert.equal(kinds[0], 'taskCreated');
    assert.equal(kinds.at(-1), 'result');
    assert.equal(text, 'Deleted sdk.txt');
    const list = await client.experimental.tasks.listTasks();
    assert.ok(list.tasks.some((t) => t.status === 'completed'));
    await client.close();
  });
});
