/**
 * Tasks drain as calls do (docs/deployment.md, "Stopping"): on SIGTERM a replica lets the
 * tasks running on it finish within MCP_SHUTDOWN_TIMEOUT_MS, and fails ("the server stopped
 * before the task finished") only those still running at the end. Real replicas of the CLI
 * over one real `redis-server`: a replica that stays up reads each task's record after the
 * one that ran it has exited (a lapsed lease reads "the server replica running this task
 * stopped" instead, so the message says which replica wrote it).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Message } from '../conformance/http-fixture.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';
import { type SpawnedHttpServer, spawnHttpServer } from '../helpers/spawn-server.ts';
import { readyz, until } from '../scale/cluster.ts';
import { createTask, taskRpc } from './http-2026.ts';

/** The drain budget of the replicas stopped here: long enough for a 1 s task at load 20. */
const BUDGET_MS = 8000;
/** How long an exit may take past the budget on a loaded machine (start of the drain, Node's exit). */
const EXIT_SLACK_MS = 20_000;
const STOPPED = 'the server stopped before the task finished';

let redis: RedisServer;
let survivor: SpawnedHttpServer;
let env: Record<string, string>;
before(async () => {
  redis = await startRedisServer();
  env = {
    MCP_REDIS_URL: redis.url,
    MCP_STATE_SECRET: randomBytes(32).toString('hex'),
    MCP_PLUGINS: 'conformance,./test/tasks/fixtures/task-plugin.ts',
    MCP_SHUTDOWN_TIMEOUT_MS: String(BUDGET_MS),
    MCP_LOG_FORMAT: 'json',
  };
  survivor = await spawnHttpServer(env);
});
after(async () => {
  await survivor?.stop();
  await redis?.stop();
});

/** The task as the surviving replica reads it from Redis, once `done` holds. */
async function taskOnSurvivor(taskId: string, done: (task: Message) => boolean, timeoutMs: number) {
  let last: Message = {};
  await until(
    async () => {
      const { status, body } = await taskRpc(survivor.url, 'tasks/get', { taskId });
      if (status !== 200) return false;
      last = body.result as Message;
      return done(last);
    },
    timeoutMs,
    `task ${taskId} to reach the expected state (last: ${JSON.stringify(last)})`,
  );
  return last;
}

const terminal = (t: Message) => ['completed', 'failed', 'cancelled'].includes(String(t.status));

/** Waits for the process to exit (bounded) and resolves with its exit code. */
async function exitOf(victim: SpawnedHttpServer, boundMs = BUDGET_MS + EXIT_SLACK_MS) {
  await until(() => victim.child.exitCode !== null || victim.child.signalCode !== null, boundMs, 'the exit');
  return victim.exited;
}

test('a 1 s task started just before SIGTERM completes, and its result is read on another replica', async () => {
  const victim = await spawnHttpServer(env);
  try {
    const taskId = await createTask(victim.url, 'slow_compute', { seconds: 1, label: 'across the drain' });
    victim.child.kill('SIGTERM');
    assert.equal(await exitOf(victim), 0, victim.stderr());
    const task = await taskOnSurvivor(taskId, terminal, 10_000);
    assert.equal(task.status, 'completed', JSON.stringify(task));
    assert.deepEqual((task.result as Message).content, [
      { type: 'text', text: 'Computed across the drain in 1 s' },
    ]);
  } finally {
    await victim.stop();
  }
});

test('a task longer than the budget runs through the drain, then is failed as stopped, and the process exits', async () => {
  const victim = await spawnHttpServer(env);
  try {
    const taskId = await createTask(victim.url, 'slow_compute', { seconds: 60 });
    const running = await taskOnSurvivor(
      taskId,
      (t) => /^step \d+ of 60$/.test(String(t.statusMessage)),
      10_000,
    );
    const stepAtSignal = Number(/^step (\d+)/.exec(String(running.statusMessage))?.[1]);
    victim.child.kill('SIGTERM');
    // It goes on working during the drain: a later step is stored after the signal.
    const later = await taskOnSurvivor(
      taskId,
      (t) => terminal(t) || Number(/^step (\d+)/.exec(String(t.statusMessage))?.[1]) > stepAtSignal + 1,
      BUDGET_MS + EXIT_SLACK_MS,
    );
    assert.equal(later.status, 'working', `still working after SIGTERM: ${JSON.stringify(later)}`);
    assert.equal(await exitOf(victim), 0, victim.stderr());
    const failed = await taskOnSurvivor(taskId, terminal, 10_000);
    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    assert.equal((failed.error as Message).message, STOPPED);
  } finally {
    await victim.stop();
  }
});

test('a task that ignores its abort signal does not hold the exit: failed as stopped, exit 0', async () => {
  const victim = await spawnHttpServer(env);
  try {
    const taskId = await createTask(victim.url, 'ignore_abort', { seconds: 120 });
    victim.child.kill('SIGTERM');
    assert.equal(await exitOf(victim), 0, victim.stderr());
    const failed = await taskOnSurvivor(taskId, terminal, 10_000);
    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    assert.equal((failed.error as Message).message, STOPPED);
  } finally {
    await victim.stop();
  }
});

test('a second SIGTERM during the drain stops now: the running task is failed as stopped, exit 1', async () => {
  const victim = await spawnHttpServer({ ...env, MCP_SHUTDOWN_TIMEOUT_MS: '120000', MCP_LOG_LEVEL: 'info' });
  try {
    const taskId = await createTask(victim.url, 'slow_compute', { seconds: 60 });
    victim.child.kill('SIGTERM');
    await until(
      () => /waiting for running tasks/.test(victim.stderr()),
      20_000,
      'the drain to wait for the task',
    );
    victim.child.kill('SIGTERM');
    // Well inside the two-minute drain: the second signal does not wait for it.
    assert.equal(await exitOf(victim, EXIT_SLACK_MS), 1, victim.stderr());
    const failed = await taskOnSurvivor(taskId, terminal, 10_000);
    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    assert.equal((failed.error as Message).message, STOPPED);
  } finally {
    await victim.stop();
  }
});

test('tasks created while /readyz is 503, up to the last one before the listener closes, all complete', async () => {
  const victim = await spawnHttpServer({ ...env, MCP_SHUTDOWN_DELAY_MS: '2000' });
  try {
    victim.child.kill('SIGTERM');
    await until(async () => (await readyz(victim)).status === 503, 10_000, '/readyz 503 after SIGTERM');
    // A load balancer that has not yet seen the 503 keeps sending: create tasks until refused.
    const created: string[] = [];
    let refusal = '';
    while (refusal === '') {
      const attempt = await taskRpc(victim.url, 'tools/call', {
        name: 'slow_compute',
        arguments: { seconds: 1, label: `task ${created.length + 1}` },
      }).catch((err: unknown) => ({ status: 0, body: { error: String(err) } as Message }));
      const result = attempt.body.result as Message | undefined;
      if (attempt.status === 200 && result?.resultType === 'task') created.push(String(result.taskId));
      else refusal = `${attempt.status} ${JSON.stringify(attempt.body)}`;
      await new Promise((r) => setTimeout(r, 50)); // a client's pace, not a wait for an event
    }
    assert.ok(created.length > 0, `no task was created during the delay (${refusal})`);
    // Refused once the listener closed: no connection, or a 503 the client retries elsewhere.
    assert.match(refusal, /^0 |^503 /);
    assert.equal(await exitOf(victim), 0, victim.stderr());
    for (const [i, taskId] of created.entries()) {
      const task = await taskOnSurvivor(taskId, terminal, 10_000);
      assert.equal(task.status, 'completed', `task ${i + 1} of ${created.length}: ${JSON.stringify(task)}`);
      assert.deepEqual((task.result as Message).content, [
        { type: 'text', text: `Computed task ${i + 1} in 1 s` },
      ]);
    }
  } finally {
    await victim.stop();
  }
});
