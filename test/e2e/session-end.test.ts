/**
 * `app.onSessionEnd` through the public API: called with the session's id when an official
 * client ends its 2025-wire session over HTTP (DELETE), when a stdio-like connection of the
 * test kit closes, and when a session expires after MCP_SESSION_IDLE_MS; a hook that throws
 * is logged and the others still run.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { createServer, definePlugin, defineTool } from '../../src/index.ts';
import { TestClient } from '../../src/testing/client/test-client.ts';
import { until } from '../helpers/until.ts';

const INFO = { name: 'session-end-test', version: '1.0.0' };

function sessionsPlugin(ended: string[]) {
  return definePlugin({
    name: 'sessions',
    register(app) {
      app.onSessionEnd(() => {
        throw new Error('a broken hook');
      });
      app.onSessionEnd((id) => ended.push(id));
      app.add(
        defineTool({ name: 'my_session', description: 'The session id', input: z.object({}) }, (_a, ctx) =>
          String(ctx.sessionId),
        ),
      );
    },
  });
}

const text = (r: { content?: unknown }) => String((r.content as { text?: string }[])[0]?.text);

describe('app.onSessionEnd', () => {
  test('an HTTP session ended by its client (DELETE)', async () => {
    const ended: string[] = [];
    const running = await createServer({
      plugins: [sessionsPlugin(ended)],
      settings: { MCP_HTTP_HOST: '127.0.0.1', MCP_HTTP_PORT: 0, MCP_LOG_LEVEL: 'silent' },
      transport: 'http',
    });
    try {
      const transport = new StreamableHTTPClientTransport(new URL(String(running.url)));
      const client = new Client(INFO);
      await client.connect(transport);
      const id = text(await client.callTool({ name: 'my_session', arguments: {} }));
      assert.equal(id, transport.sessionId);
      assert.equal(ended.length, 0);
      await transport.terminateSession();
      await until(() => ended.includes(id), { message: 'the hook to see the session end' });
      await client.close();
    } finally {
      await running.close();
    }
  });

  test('a session that expires after MCP_SESSION_IDLE_MS', async () => {
    const ended: string[] = [];
    const running = await createServer({
      plugins: [sessionsPlugin(ended)],
      settings: {
        MCP_HTTP_HOST: '127.0.0.1',
        MCP_HTTP_PORT: 0,
        MCP_LOG_LEVEL: 'silent',
        MCP_SESSION_IDLE_MS: 1000,
      },
      transport: 'http',
    });
    try {
      const transport = new StreamableHTTPClientTransport(new URL(String(running.url)));
      const client = new Client(INFO);
      await client.connect(transport);
      const id = text(await client.callTool({ name: 'my_session', arguments: {} }));
      await until(() => ended.includes(id), {
        timeoutMs: 10_000,
        message: 'the hook to see the session expire',
      });
      await client.close().catch(() => {});
    } finally {
      await running.close();
    }
  });

  test('a connection of the test kit that closes', async () => {
    const ended: string[] = [];
    const client = await TestClient.start({ plugins: [sessionsPlugin(ended)] });
    const id = await client.callText('my_session');
    await client.close();
    assert.deepEqual(ended, [id]);
  });
});
