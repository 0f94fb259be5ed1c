/**
 * On SIGTERM the real CLI lets the call in flight answer, and only then runs the plugins'
 * onClose hooks, and exits 0: a plugin's pool is never closed under a running call, nor under
 * a plugin's HTTP route handler still running.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, spawnHttpServer } from '../helpers/spawn-server.ts';
import { until } from '../helpers/until.ts';

const PLUGIN = path.join(REPO_ROOT, 'test', 'fixtures', 'lifecycle-plugin.ts');
const V2026 = '2026-07-28';

test('SIGTERM: the call in flight answers, then onClose runs, then the process exits 0', async () => {
  const server = await spawnHttpServer({
    MCP_PLUGINS: PLUGIN,
    MCP_LOG_FORMAT: 'json',
    MCP_LOG_LEVEL: 'warn',
  });
  try {
    assert.match(server.stderr(), /lifecycle: pool opened/);
    const answer = fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': V2026,
        'mcp-method': 'tools/call',
        'mcp-name': 'hold',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'hold',
          arguments: { ms: 700 },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': V2026,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    await until(() => server.stderr().includes('lifecycle: call started'), { message: 'the call to start' });
    server.child.kill('SIGTERM');
    const res = await answer;
    assert.equal(res.status, 200);
    const body = (await res.json()) as { result?: { content?: { text?: string }[] } };
    assert.equal(body.result?.content?.[0]?.text, 'held');
    assert.equal(await server.exited, 0, server.stderr());
    const log = server.stderr();
    const answering = log.indexOf('lifecycle: call answering');
    const closed = log.indexOf('lifecycle: pool closed');
    assert.ok(answering !== -1 && closed > answering, `onClose after the answer:\n${log}`);
  } finally {
    if (server.child.exitCode === null) await server.stop();
  }
});

test('SIGTERM: a plugin route handler in flight answers, then onClose runs, then the process exits 0', async () => {
  const server = await spawnHttpServer({
    MCP_PLUGINS: PLUGIN,
    MCP_LOG_FORMAT: 'json',
    MCP_LOG_LEVEL: 'warn',
  });
  try {
    const answer = fetch(`${new URL(server.url).origin}/hold?ms=700`);
    await until(() => server.stderr().includes('lifecycle: route started'), {
      message: 'the route to start',
    });
    server.child.kill('SIGTERM');
    const res = await answer;
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { held: true });
    assert.equal(await server.exited, 0, server.stderr());
    const log = server.stderr();
    const answering = log.indexOf('lifecycle: route answering');
    const closed = log.indexOf('lifecycle: pool closed');
    assert.ok(answering !== -1 && closed > answering, `onClose after the route answered:\n${log}`);
  } finally {
    if (server.child.exitCode === null) await server.stop();
  }
});
