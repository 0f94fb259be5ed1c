/**
 * The 2026 tasks extension over a real socket: the routing headers of the tasks methods
 * (SEP-2663 §Routing Headers: `Mcp-Name` carries the task id) and task status notifications
 * on a `subscriptions/listen` stream (`notifications/tasks`, the full DetailedTask each time).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type Fixture,
  type Message,
  post,
  request,
  SseReader,
  startFixture,
  V2026,
} from '../conformance/http-fixture.ts';
import { TASKS, WITH_TASKS } from './helpers.ts';

let fixture: Fixture;
const controllers: AbortController[] = [];
before(async () => {
  fixture = await startFixture();
});
after(async () => {
  for (const c of controllers) c.abort();
  await fixture.close();
});

/** A 2026 POST with the envelope and the headers SEP-2243/SEP-2663 ask for (overridable). */
function post2026(
  id: number | string,
  method: string,
  params: Message,
  options: { capabilities?: Message; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': V2026,
    'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? WITH_TASKS,
  };
  const headers: Record<string, string> = { 'mcp-protocol-version': V2026, 'mcp-method': method };
  const name = params.taskId ?? params.name;
  if (typeof name === 'string') headers['mcp-name'] = name;
  return post(
    fixture.url,
    request(id, method, { ...params, _meta: meta }),
    { ...headers, ...options.headers },
    options.signal,
  );
}

async function json(res: Response): Promise<Message> {
  return (await res.json()) as Message;
}

async function createTask(seconds: number): Promise<string> {
  const res = await post2026(1, 'tools/call', { name: 'slow_compute', arguments: { seconds } });
  assert.equal(res.status, 200);
  const result = (await json(res)).result as Message;
  assert.equal(result.resultType, 'task');
  return String(result.taskId);
}

describe('2026 tasks over HTTP', () => {
  test('Mcp-Name must carry the task id on tasks/get, tasks/update and tasks/cancel: 400, -32020', async () => {
    const taskId = await createTask(0.2);
    const ok = await post2026(2, 'tasks/get', { taskId });
    assert.equal(ok.status, 200);
    assert.equal(((await json(ok)).result as Message).taskId, taskId);
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const params: Message = method === 'tasks/update' ? { taskId, inputResponses: {} } : { taskId };
      const wrong = await post2026(3, method, params, { headers: { 'mcp-name': 'another-task' } });
      assert.equal(wrong.status, 400, method);
      assert.equal(((await json(wrong)).error as Message).code, -32020);
    }
    const padded = await post2026(4, 'tasks/get', { taskId }, { headers: { 'mcp-name': `  ${taskId} ` } });
    assert.equal(padded.status, 200);
    await padded.text();
  });

  test('tasks methods without the extension: 400, -32021 naming it', async () => {
    const res = await post2026(5, 'tasks/get', { taskId: 'x' }, { capabilities: {} });
    assert.equal(res.status, 400);
    const error = (await json(res)).error as Message;
    assert.equal(error.code, -32021);
    assert.deepEqual(error.data, { requiredCapabilities: { extensions: { [TASKS]: {} } } });
  });

  test('a listen stream with taskIds gets notifications/tasks for the caller’s tasks, the last with the result', async () => {
    const taskId = await createTask(0.3);
    const controller = new AbortController();
    controllers.push(controller);
    const res = await post2026(
      'listen-1',
      'subscriptions/listen',
      { notifications: { taskIds: [taskId, 'not-a-task'] } },
      { signal: controller.signal },
    );
    assert.equal(res.status, 200);
    const reader = new SseReader(res, V2026, 'subscriptions/listen');
    const ack = await reader.next();
    assert.equal(ack?.message?.method, 'notifications/subscriptions/acknowledged');
    // Only the caller's own tasks are honoured.
    assert.deepEqual((ack.message.params as Message).notifications, { taskIds: [taskId] });
    let last: Message | undefined;
    for (let i = 0; i < 10; i++) {
      const event = await reader.next();
      const message = event?.message;
      assert.ok(message, 'a notification arrives');
      assert.equal(message.method, 'notifications/tasks');
      const params = message.params as Message;
      assert.equal(params.taskId, taskId);
      assert.equal((params._meta as Message)['io.modelcontextprotocol/subscriptionId'], 'listen-1');
      last = params;
      if (params.status === 'completed') break;
    }
    assert.equal(last?.status, 'completed');
    assert.deepEqual((last?.result as Message | undefined)?.content, [
      { type: 'text', text: 'Computed the result in 0.3 s' },
    ]);
    await reader.cancel();
    controller.abort();
  });

  test('asking for task notifications without the extension is -32021', async () => {
    const res = await post2026(
      'listen-2',
      'subscriptions/listen',
      { notifications: { taskIds: ['x'] } },
      { capabilities: {} },
    );
    assert.equal(res.status, 400);
    assert.equal(((await json(res)).error as Message).code, -32021);
  });
});
