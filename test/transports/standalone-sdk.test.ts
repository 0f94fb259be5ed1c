/**
 * The official SDK v1 client against one standalone stream per session (MCP 2025-11-25
 * "Multiple Connections"), over a real socket. The client resumes a call's finished reply
 * stream from its last event (as it does after a -32044 answer); that resume brings nothing
 * and ends, so the client reconnects with a fresh GET beside the stream it already has. That
 * GET is refused (409); the client makes `maxRetries` attempts in all and gives up, reporting
 * it: a bounded number of GETs, no loop, and the session's first stream goes on delivering each
 * notification once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { defineTool } from '../../src/registry/define.ts';
import { until } from '../helpers/until.ts';
import { buildTestApp, type TestApp } from './http-helpers.ts';

let t: TestApp;
let url: string;
let gets = 0;
let refused = 0;
let warm = 0;
before(async () => {
  // The client waits the server's `retry:` between its reconnects.
  t = await buildTestApp({ MCP_SSE_RETRY_MS: '50' });
  // Counted as they arrive (an open stream's response has not finished yet), refusals as they end.
  t.app.addHook('onRequest', async (req) => {
    if (req.method === 'GET' && req.headers['mcp-session-id']) gets++;
  });
  t.app.addHook('onResponse', async (req, reply) => {
    if (req.method === 'GET' && req.headers['mcp-session-id'] && reply.statusCode === 409) refused++;
  });
  url = await t.listen();
});
after(() => t.close());

test('a second GET the SDK v1 client opens is refused; it retries a bounded number of times; the first stream goes on', {
  timeout: 60_000,
}, async () => {
  const client = new Client({ name: 'standalone-sdk', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    reconnectionOptions: {
      maxRetries: 2,
      initialReconnectionDelay: 50,
      maxReconnectionDelay: 100,
      reconnectionDelayGrowFactor: 1,
    },
  });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
  const errors: string[] = [];
  client.onerror = (err) => errors.push(String(err));
  await client.connect(transport);
  // The client's own standalone stream is open: a list change reaches it.
  await until(
    () => {
      if (changes === 0)
        t.server.registry.add(defineTool({ name: `warm_${++warm}`, description: 'x' }, async () => 'x'));
      return changes > 0;
    },
    { message: 'the client’s GET stream never delivered', timeoutMs: 30_000, intervalMs: 200 },
  );
  const before = changes;

  // A call answered on an SSE stream with event ids; the client keeps its last id.
  let lastId: string | undefined;
  await client.callTool({ name: 'progress', arguments: {} }, undefined, {
    onprogress: () => {},
    onresumptiontoken: (token) => {
      lastId = token;
    },
  });
  assert.ok(lastId, 'the reply stream carried event ids');
  const getsBefore = gets;
  // Resuming it from its last event (the client does so after an error answer): nothing comes,
  // the stream ends, and the client reconnects with a fresh GET, which is refused.
  await transport.send({ jsonrpc: '2.0', id: 99, method: 'ping' }, { resumptionToken: lastId });
  await until(() => errors.some((e) => /Maximum reconnection attempts \(2\) exceeded/.test(e)), {
    message: 'the client never gave the refused GET up',
    timeoutMs: 30_000,
  });
  // The resume, then one fresh GET per reconnection attempt (maxRetries of them), each refused.
  assert.equal(gets - getsBefore, 3);
  assert.equal(refused, 2);
  assert.ok(
    errors.some((e) => /409|Conflict/.test(e)),
    errors.join('\n'),
  );

  // The first stream goes on, each change once.
  t.server.registry.add(defineTool({ name: 'after', description: 'x' }, async () => 'x'));
  await until(() => changes === before + 1, { message: 'the change after', timeoutMs: 30_000 });
  t.server.registry.add(defineTool({ name: 'after_2', description: 'x' }, async () => 'x'));
  await until(() => changes === before + 2, { message: 'the second change after', timeoutMs: 30_000 });
  // Nothing more is retried: no GET was made meanwhile.
  assert.equal(gets - getsBefore, 3);
  await client.close();
});
