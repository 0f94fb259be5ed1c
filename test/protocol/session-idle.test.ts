/**
 * A session is idle only when idle: with a request in flight it never expires
 * (MCP_SESSION_IDLE_MS), however long the request runs, and its idle time counts from the
 * request's end. The memory store with a fake clock, and a real server whose tool runs past
 * the idle time (fixtures/slow-plugin.ts; the session's end is what plugins, the proxy's
 * per-session upstream among them, hear about).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createServer } from '../../src/index.ts';
import { createMemorySessionStore } from '../../src/protocol/session/store.ts';
import { ended, slowPlugin } from './fixtures/slow-plugin.ts';

describe('the memory session store', () => {
  test('a held session does not expire; its idle time counts from the release', async () => {
    let clock = 0;
    const expired: string[] = [];
    const store = createMemorySessionStore({
      idleMs: 1000,
      maxSessions: 10,
      now: () => clock,
      onExpire: (id) => expired.push(id),
    });
    try {
      const session = await store.create();
      assert.ok(session);
      const release = store.hold(session);
      const second = store.hold(session);
      clock += 5000;
      assert.equal((await store.get(session.id))?.id, session.id, 'held: not expired');
      release();
      clock += 5000;
      assert.equal((await store.get(session.id))?.id, session.id, 'still held by the second request');
      second();
      second(); // a release counts once
      clock += 999;
      assert.equal(
        (await store.get(session.id))?.id,
        session.id,
        'idle for less than idleMs since the release',
      );
      clock += 1001;
      assert.equal(await store.get(session.id), undefined);
      assert.deepEqual(expired, [session.id]);
    } finally {
      await store.close();
    }
  });
});

const IDLE_MS = 3000;
const CALL_MS = IDLE_MS + 1500;

describe('a session with a call in flight', () => {
  test('is not expired while the call runs past MCP_SESSION_IDLE_MS', { timeout: 60_000 }, async () => {
    const server = await createServer({
      plugins: [slowPlugin],
      transport: 'http',
      // Idle time long enough that the client's turn between two calls fits in it on a loaded
      // machine (1 s did not, at a load average of 25); each call runs past it.
      settings: { MCP_LOG_LEVEL: 'silent', MCP_HTTP_PORT: 0, MCP_SESSION_IDLE_MS: IDLE_MS },
    });
    const client = new Client({ name: 'idle', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url as string)));
    try {
      const r = await client.callTool({ name: 'slow', arguments: { ms: CALL_MS } });
      assert.notEqual(r.isError, true, JSON.stringify(r));
      assert.deepEqual(ended, [], 'the session did not end during the call');
      // The session is still there right after the call: the same client calls again.
      assert.notEqual((await client.callTool({ name: 'slow', arguments: { ms: CALL_MS } })).isError, true);
      assert.deepEqual(ended, []);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
