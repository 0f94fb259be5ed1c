/**
 * 2026-wire tasks over raw HTTP, for the tests of tasks across replicas and Redis topologies: a request that
 * declares the tasks extension and names the task in `Mcp-Name` (SEP-2663: what lets a
 * balancer route it), a task created, and `tasks/get` polled on any replica until a state.
 */
import assert from 'node:assert/strict';
import { type Message, post, request, V2026 } from '../conformance/http-fixture.ts';
import { WITH_TASKS } from './helpers.ts';

const TERMINAL = ['completed', 'failed', 'cancelled'];
export const isTerminal = (task: Message) => TERMINAL.includes(String(task.status));

let nextId = 1;

/** One 2026 request declaring the tasks extension; the HTTP status and the JSON body. */
export async function taskRpc(
  url: string,
  method: string,
  params: Message,
): Promise<{ status: number; body: Message }> {
  const headers: Record<string, string> = { 'mcp-protocol-version': V2026, 'mcp-method': method };
  const name = params.taskId ?? params.name;
  if (typeof name === 'string') headers['mcp-name'] = name;
  const meta = {
    'io.modelcontextprotocol/protocolVersion': V2026,
    'io.modelcontextprotocol/clientCapabilities': WITH_TASKS,
  };
  const res = await post(url, request(`task-${nextId++}`, method, { ...params, _meta: meta }), headers);
  return { status: res.status, body: (await res.json()) as Message };
}

/** Calls `name` on `url`, which answers with a task handle; its id. */
export async function createTask(url: string, name: string, args: Message): Promise<string> {
  const { status, body } = await taskRpc(url, 'tools/call', { name, arguments: args });
  assert.equal(status, 200, JSON.stringify(body));
  const result = body.result as Message;
  assert.equal(result.resultType, 'task', JSON.stringify(body));
  return String(result.taskId);
}

/**
 * Polls `tasks/get` on `url` until `done` holds for the task; a refusal meanwhile (503 while
 * Redis fails over, a connection refused) is polled again. Bounded by `timeoutMs`.
 */
export async function pollTaskOn(
  url: string,
  taskId: string,
  done: (task: Message) => boolean,
  timeoutMs: number,
): Promise<Message> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const got = await taskRpc(url, 'tasks/get', { taskId }).catch((err: unknown) => ({
      status: 0,
      body: { error: String(err) } as Message,
    }));
    last = got.body;
    if (got.status === 200 && got.body.result !== undefined && done(got.body.result as Message)) {
      return got.body.result as Message;
    }
    assert.ok(
      Date.now() < deadline,
      `task ${taskId} not as expected within ${timeoutMs} ms: ${JSON.stringify(last)}`,
    );
    await new Promise((r) => setTimeout(r, 50));
  }
}
