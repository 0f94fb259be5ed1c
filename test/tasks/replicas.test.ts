/**
 * Tasks across replicas (MCP_REDIS_URL): two real replicas of the CLI over one real
 * redis-server. A task created on one replica is polled, answered and cancelled through the
 * other (and through the round-robin proxy); its status reaches a listen stream on the other
 * replica; its outcome survives a Redis restart; and a replica that dies with a task running
 * leaves it `failed`, not `working`, once its lease lapses (5/3 of MCP_TASK_LEASE_MS, 1.5 s here).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Message, post, request, SseReader, V2026 } from '../conformance/http-fixture.ts';
import { type Cluster, startCluster, until } from '../scale/cluster.ts';
import { WITH_TASKS } from './helpers.ts';
import { taskRpc } from './http-2026.ts';

let cluster: Cluster;
before(async () => {
  cluster = await startCluster({
    MCP_PLUGINS: 'conformance,./test/tasks/fixtures/task-plugin.ts',
    MCP_TASK_LEASE_MS: '1500',
  });
});
after(async () => {
  await cluster?.stop();
});

const replica = (i: number) => (cluster.replicas[i] as { url: string }).url;

async function result(url: string, method: string, params: Message): Promise<Message> {
  const { status, body } = await taskRpc(url, method, params);
  assert.equal(status, 200, `${method}: ${JSON.stringify(body)}`);
  return body.result as Message;
}

async function create(url: string, name: string, args: Message = {}): Promise<string> {
  const created = await result(url, 'tools/call', { name, arguments: args });
  assert.equal(created.resultType, 'task');
  return String(created.taskId);
}

/** Polls tasks/get on `url` until `done` holds; errors (an outage, a lost record) are retried. */
async function pollUntil(url: string, taskId: string, done: (task: Message) => boolean, timeoutMs: number) {
  let last: Message | undefined;
  await until(
    async () => {
      const { status, body } = await taskRpc(url, 'tasks/get', { taskId }).catch(() => ({
        status: 0,
        body: {} as Message,
      }));
      // An outage (503) or a record not yet back in the store (-32602): poll again.
      if (status !== 200 || body.result === undefined) return false;
      last = body.result as Message;
      return done(last);
    },
    timeoutMs,
    `task ${taskId} to reach the expected state`,
  );
  return last as Message;
}

describe('tasks across two replicas', () => {
  test('created on one replica; polled, answered through the other; the other resumes it to completion', async () => {
    const taskId = await create(replica(0), 'confirm_delete', { filename: 'r.txt' });
    const waiting = await result(replica(1), 'tasks/get', { taskId });
    assert.ok(['working', 'input_required'].includes(String(waiting.status)));
    await pollUntil(replica(1), taskId, (t) => t.status === 'input_required', 10_000);
    const ack = await result(replica(1), 'tasks/update', {
      taskId,
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    });
    assert.equal(ack.resultType, 'complete');
    const done = await pollUntil(cluster.url, taskId, (t) => t.status === 'completed', 10_000);
    assert.deepEqual((done.result as Message).content, [{ type: 'text', text: 'Deleted r.txt' }]);
  });

  test('tasks/cancel on the other replica stops the handler where it runs', async () => {
    const taskId = await create(replica(0), 'wait_for_abort');
    await result(replica(1), 'tasks/cancel', { taskId });
    assert.equal((await result(replica(0), 'tasks/get', { taskId })).status, 'cancelled');
    await until(
      () =>
        /wait_for_abort ended.*the task was cancelled|the task was cancelled.*wait_for_abort ended/.test(
          cluster.replicas[0]?.stderr() ?? '',
        ),
      10_000,
      'the handler on replica 1 to be aborted',
    );
    assert.equal((await result(replica(1), 'tasks/get', { taskId })).status, 'cancelled');
  });

  test('a listen stream on one replica hears the status of a task running on the other', async () => {
    const taskId = await create(replica(0), 'slow_compute', { seconds: 1 });
    const controller = new AbortController();
    try {
      const meta = {
        'io.modelcontextprotocol/protocolVersion': V2026,
        'io.modelcontextprotocol/clientCapabilities': WITH_TASKS,
      };
      const res = await post(
        replica(1),
        request('listen', 'subscriptions/listen', { notifications: { taskIds: [taskId] }, _meta: meta }),
        { 'mcp-protocol-version': V2026, 'mcp-method': 'subscriptions/listen' },
        controller.signal,
      );
      const reader = new SseReader(res, V2026, 'subscriptions/listen');
      const ack = await reader.next();
      assert.deepEqual((ack?.message?.params as Message | undefined)?.notifications, { taskIds: [taskId] });
      let status: unknown;
      for (let i = 0; i < 20 && status !== 'completed'; i++) {
        const event = await reader.next();
        assert.equal(event?.message?.method, 'notifications/tasks');
        status = (event?.message?.params as Message | undefined)?.status;
      }
      assert.equal(status, 'completed');
      await reader.cancel();
    } finally {
      controller.abort();
    }
  });

  test('Redis away while a task runs: 503 meanwhile; the outcome is stored once Redis is back, data lost or not', async () => {
    const taskId = await create(replica(0), 'slow_compute', { seconds: 2, label: 'through the outage' });
    // Running: its first progress step is stored as the status message.
    await pollUntil(replica(1), taskId, (t) => t.statusMessage === 'step 1 of 2', 10_000);
    await cluster.redis.stop();
    const away = await taskRpc(replica(1), 'tasks/get', { taskId });
    assert.equal(away.status, 503);
    assert.equal((away.body.error as Message).code, -32039);
    await cluster.redis.restart();
    const done = await pollUntil(replica(1), taskId, (t) => t.status === 'completed', 20_000);
    assert.deepEqual((done.result as Message).content, [
      { type: 'text', text: 'Computed through the outage in 2 s' },
    ]);
  });

  test('a replica that dies with a task running: the task is failed within the lease', async () => {
    const taskId = await create(replica(0), 'slow_compute', { seconds: 60 });
    assert.equal((await result(replica(1), 'tasks/get', { taskId })).status, 'working');
    const victim = cluster.replicas[0];
    assert.ok(victim);
    victim.child.kill('SIGKILL');
    await victim.exited;
    // The lease lapses 2.5 s after its last write; the bound leaves room for a loaded machine.
    const failed = await pollUntil(replica(1), taskId, (t) => t.status === 'failed', 10_000);
    assert.match(String((failed.error as Message).message), /replica running this task stopped/);
  });
});
