/**
 * Spans and metrics on shutdown, from the real CLI process exporting to a real OTLP receiver:
 * with a batch delay longer than the test, spans leave only through the flush. The flush is
 * part of MCP_SHUTDOWN_TIMEOUT_MS (a call that outlasts the budget does not push the exit past
 * it), and a second SIGTERM during the drain exits at once without losing what was buffered.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { BATTERIES_PLUGIN, connectSdk } from '../e2e/batteries/helpers.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { type SpawnedHttpServer, spawnHttpServer } from '../helpers/spawn-server.ts';
import { until } from '../helpers/until.ts';

const BUDGET_MS = 3000;
let receiver: OtlpReceiver;
let server: SpawnedHttpServer | undefined;

beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await server?.stop();
  await receiver.close();
});

async function start(): Promise<SpawnedHttpServer> {
  server = await spawnHttpServer({
    MCP_PLUGINS: BATTERIES_PLUGIN,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: 'shutdown-flush',
    // Nothing leaves before the flush.
    OTEL_BSP_SCHEDULE_DELAY: '600000',
    MCP_SHUTDOWN_TIMEOUT_MS: String(BUDGET_MS),
    MCP_LOG_LEVEL: 'info',
    MCP_LOG_FORMAT: 'json',
  });
  return server;
}

/** Calls whoami (its span is buffered), then starts a call that outlasts the budget. */
async function bufferedSpanAndSlowCall(s: SpawnedHttpServer) {
  const client = await connectSdk(s.url);
  await client.callTool({ name: 'whoami', arguments: {} });
  let started!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const slow = client
    .callTool({ name: 'slow_started', arguments: { ms: 10_000 } }, undefined, {
      onprogress: () => started(),
      timeout: 30_000,
    })
    .catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    running,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('the slow call did not start within 10 s')), 10_000);
    }),
  ]).finally(() => clearTimeout(timer));
  assert.equal(receiver.requests.filter((r) => r.path === '/v1/traces').length, 0, 'nothing exported yet');
  return { client, slow };
}

describe('shutdown flushes telemetry', () => {
  test('SIGTERM: spans and metrics flushed, the whole stop within MCP_SHUTDOWN_TIMEOUT_MS', async () => {
    const s = await start();
    const { client } = await bufferedSpanAndSlowCall(s);
    const t0 = Date.now();
    s.child.kill('SIGTERM');
    assert.equal(await s.exited, 0);
    const took = Date.now() - t0;
    assert.ok(took < BUDGET_MS + 1500, `stopped in ${took} ms, budget ${BUDGET_MS} ms`);
    await client.close().catch(() => undefined);
    const [span] = await receiver.waitForSpans((x) => x.name === 'tools/call whoami', 2000);
    assert.equal(span?.resource['service.name'], 'shutdown-flush');
    await receiver.waitForMetric('mcp.server.operation.duration', 2000);
  });

  test('a second SIGTERM during the drain exits at once, and the buffered spans still arrive', async () => {
    const s = await start();
    const { client } = await bufferedSpanAndSlowCall(s);
    s.child.kill('SIGTERM');
    // The second signal must land during the drain: wait for the first one's log line.
    await until(() => s.stderr().includes('signal received: draining'), {
      message: 'the server never logged the first SIGTERM (draining)',
    });
    const t0 = Date.now();
    s.child.kill('SIGTERM');
    const code = await s.exited;
    assert.ok(Date.now() - t0 < BUDGET_MS, 'did not wait for the drain');
    assert.equal(code, 1);
    await client.close().catch(() => undefined);
    await receiver.waitForSpans((x) => x.name === 'tools/call whoami', 2000);
    assert.match(s.stderr(), /second signal: exporting buffered telemetry/);
  });
});
