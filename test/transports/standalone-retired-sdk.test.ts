/**
 * The official SDK v1 client resuming its standalone GET stream after the server retired it
 * (its connection stayed away past MCP_SSE_STANDALONE_GRACE_MS), over a real socket. MCP
 * 2025-11-25 "Resumability and Redelivery": the resume replays what was stored after the
 * client's last event and then goes on as the session's live standalone stream, so the client
 * gets what it missed and every later notification on that one connection: one GET after the
 * drop, no reconnect loop. A fresh GET beside it is still refused (409, one standalone stream
 * per session).
 */
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { defineTool } from '../../src/registry/define.ts';
import { until } from '../helpers/until.ts';
import { buildTestApp, type TestApp, V2025 } from './http-helpers.ts';

/** How long the client waits before reconnecting (the server's `retry:`), well past the grace. */
const RETRY_MS = 1500;
const GRACE_MS = 100;

let t: TestApp;
let url: string;
/** The GETs of the session, in order: whether each carried Last-Event-ID. */
const gets: { resume: boolean }[] = [];
/** The socket of the latest GET, to drop its connection from the server's side. */
let lastGetSocket: Socket | undefined;
before(async () => {
  t = await buildTestApp({
    MCP_SSE_RETRY_MS: String(RETRY_MS),
    MCP_SSE_STANDALONE_GRACE_MS: String(GRACE_MS),
  });
  t.app.addHook('onRequest', async (req) => {
    if (req.method !== 'GET' || !req.headers['mcp-session-id']) return;
    gets.push({ resume: req.headers['last-event-id'] !== undefined });
    lastGetSocket = req.raw.socket;
  });
  url = await t.listen();
});
after(() => t.close());

test('a resume of a retired standalone stream replays what it missed and goes on live: one GET, no loop', {
  timeout: 90_000,
}, async () => {
  const client = new Client({ name: 'standalone-retired', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    reconnectionOptions: {
      maxRetries: 5,
      initialReconnectionDelay: RETRY_MS,
      maxReconnectionDelay: RETRY_MS,
      reconnectionDelayGrowFactor: 1,
    },
  });
  const seen: string[] = [];
  let added = 0;
  const addTool = (name: string) =>
    t.server.registry.add(defineTool({ name, description: 'x' }, async () => 'x'));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    seen.push(`change ${seen.length + 1}`);
  });
  await client.connect(transport);
  // The client's standalone stream is open: a list change reaches it.
  await until(
    () => {
      if (seen.length === 0) addTool(`warm_${++added}`);
      return seen.length > 0;
    },
    { message: 'the client’s GET stream never delivered', timeoutMs: 30_000, intervalMs: 200 },
  );
  assert.equal(gets.length, 1);
  const delivered = seen.length;

  // The connection drops (the server's side of it), and a change comes while no connection
  // takes it: it is stored for the resume. The client reconnects only after RETRY_MS, by
  // which time the stream was retired (its grace is GRACE_MS).
  const socket = lastGetSocket;
  assert.ok(socket);
  socket.destroy();
  addTool('while_away');
  await until(() => gets.length === 2, {
    message: 'the client never resumed its stream',
    timeoutMs: 30_000,
  });
  assert.equal(gets[1]?.resume, true, 'the reconnect carried Last-Event-ID');
  // What it missed, from the retired stream's store.
  await until(() => seen.length === delivered + 1, {
    message: 'the change made while the client was away never arrived',
    timeoutMs: 30_000,
  });

  // Then the same connection is the session's live standalone stream.
  addTool('after_1');
  await until(() => seen.length === delivered + 2, { message: 'the change after', timeoutMs: 30_000 });
  addTool('after_2');
  await until(() => seen.length === delivered + 3, { message: 'the second change after', timeoutMs: 30_000 });
  assert.deepEqual(
    gets.slice(1),
    [{ resume: true }],
    'one GET after the drop: the resume, still open, no reconnect loop',
  );

  // One standalone stream per session: a fresh GET beside it is refused.
  const fresh = await fetch(url, {
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': String(transport.sessionId),
      'mcp-protocol-version': V2025,
    },
  });
  await fresh.body?.cancel();
  assert.equal(fresh.status, 409);
  assert.equal(gets.length, 3);
  await client.close();
});
