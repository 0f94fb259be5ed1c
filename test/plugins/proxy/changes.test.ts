/**
 * The proxy plugin against an upstream whose list changes at run time and whose calls can be
 * cancelled (fixtures/changing-server.ts): a tool the upstream adds is served after its
 * tools/list_changed, and our client is told; a call our client cancels is cancelled upstream.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { TestClient } from '@mcp-toolkit/server/testing';
import proxy from '../../../plugins/proxy/index.ts';
import { REPO_ROOT } from '../../helpers/spawn-server.ts';
import { until } from '../../helpers/until.ts';

const FIXTURE = path.join(REPO_ROOT, 'test/plugins/proxy/fixtures/changing-server.ts');

let client: TestClient;
before(async () => {
  client = await TestClient.start({
    plugins: [proxy],
    env: {
      MCP_PROXY_COMMAND: process.execPath,
      MCP_PROXY_ARGS: JSON.stringify([FIXTURE]),
      MCP_PROXY_PREFIX: 'up_',
    },
  });
});
after(() => client?.close());

test("the upstream's list_changed re-reads its tools, and our client is told", async () => {
  assert.equal(await client.callText('up_grow'), 'grown_1');
  await until(async () => (await client.listTools()).some((t) => t.name === 'up_grown_1'), {
    timeoutMs: 10_000,
    message: 'up_grown_1 to be listed',
  });
  assert.equal(await client.callText('up_grown_1'), 'grown_1');
  assert.ok(client.notifications.some((n) => n.method === 'notifications/tools/list_changed'));
});

test('a call our client cancels is cancelled upstream', async () => {
  const call = client.send({
    jsonrpc: '2.0',
    id: 'slow',
    method: 'tools/call',
    params: { name: 'up_wait', arguments: { ms: 30_000 }, _meta: { progressToken: 'begun' } },
  });
  // The upstream's first progress says it is running the wait.
  await until(
    () =>
      client.notifications.some(
        (n) =>
          n.method === 'notifications/progress' &&
          (n.params as { progressToken?: unknown } | undefined)?.progressToken === 'begun',
      ),
    { timeoutMs: 10_000, message: 'the upstream to be running the call' },
  );
  await client.notify('notifications/cancelled', { requestId: 'slow', reason: 'changed my mind' });
  assert.equal(await call, undefined);
  await until(async () => (await client.callText('up_cancelled')) === '1', {
    timeoutMs: 10_000,
    message: 'the upstream to see the cancellation',
  });
});
