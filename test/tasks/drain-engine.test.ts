/**
 * The task engine's drain (`TaskEngine.drain(until)`, what a stopping server runs within
 * MCP_SHUTDOWN_TIMEOUT_MS), in-process: running tasks finish, tasks created meanwhile run
 * too, what still runs at `until` is failed as stopped, and a task asked for once the engine
 * has closed is refused with -32039 (try again), never accepted and then failed. The real
 * processes and signals are in drain.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import conformancePlugin from '../../plugins/conformance/index.ts';
import { buildMcpServer } from '../../src/assembly/server.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { ErrorCode } from '../../src/index.ts';
import { createLocalTaskBus, createMemoryTaskStore } from '../../src/tasks/memory-store.ts';
import type { TestClientError } from '../../src/testing/client/test-client.ts';
import { handleOf, startClient } from '../helpers/client.ts';
import { taskTestPlugin } from './fixtures/task-plugin.ts';
import { WITH_TASKS } from './helpers.ts';

const STOPPED = { code: ErrorCode.InternalError, message: 'the server stopped before the task finished' };

async function setUp() {
  const store = createMemoryTaskStore();
  const server = await buildMcpServer({
    settings: parseSettings({ MCP_LOG_LEVEL: 'silent' }),
    logger: pino({ level: 'silent' }),
    plugins: [
      { definition: conformancePlugin as never, settings: {} },
      { definition: taskTestPlugin as never, settings: {} },
    ],
    // The store outlives the server, as Redis does.
    tasks: { store, bus: createLocalTaskBus() },
  });
  const client = await startClient({ server: handleOf(server), wire: '2026', capabilities: WITH_TASKS });
  const create = async (name: string, args: Record<string, unknown> = {}) =>
    String((await client.request('tools/call', { name, arguments: args })).taskId);
  return {
    store,
    server,
    client,
    create,
    async end() {
      await client.close();
      await server.close();
      await store.close();
    },
  };
}

test('drain: a running task finishes, and one created during the drain runs too', async () => {
  const s = await setUp();
  try {
    const first = await s.create('report_progress');
    const draining = s.server.tasks.drain(Date.now() + 60_000);
    // Created while the engine drains (a load balancer still sending): in-flight work, it runs.
    const second = await s.create('slow_compute', { seconds: 0.2, label: 'during the drain' });
    await draining;
    assert.equal((await s.store.get(first))?.status, 'completed');
    const late = await s.store.get(second);
    assert.equal(late?.status, 'completed');
    assert.deepEqual(late?.result?.content, [{ type: 'text', text: 'Computed during the drain in 0.2 s' }]);
  } finally {
    await s.end();
  }
});

test('drain: what still runs at `until` is failed as stopped; a task asked for afterwards is refused with -32039', async () => {
  const s = await setUp();
  try {
    const taskId = await s.create('wait_for_abort');
    const stubborn = await s.create('ignore_abort', { seconds: 60 });
    const until = Date.now() + 300;
    const draining = s.server.tasks.drain(until);
    // Running until then, not failed at once.
    assert.equal((await s.store.get(taskId))?.status, 'working');
    await draining;
    assert.ok(Date.now() >= until, 'the drain waited until its end');
    assert.equal((await s.store.get(taskId))?.status, 'failed');
    assert.deepEqual((await s.store.get(taskId))?.error, STOPPED);
    // A handler that ignores its signal is failed all the same, without holding the drain up.
    assert.deepEqual((await s.store.get(stubborn))?.error, STOPPED);
    await assert.rejects(
      s.client.request('tools/call', { name: 'slow_compute', arguments: { seconds: 1 } }),
      (e: TestClientError) => e.code === ErrorCode.ServiceUnavailable,
    );
    // Closing again (a second signal) resolves with the same stored outcome.
    await s.server.tasks.close();
    assert.deepEqual((await s.store.get(taskId))?.error, STOPPED);
  } finally {
    await s.end();
  }
});
