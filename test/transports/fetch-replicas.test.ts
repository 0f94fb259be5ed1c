/**
 * The fetch handler on two replicas sharing a real `redis-server` (MCP_REDIS_URL), as a
 * serverless deployment runs it: each replica is `createServer({ transport: 'none' })` behind
 * Hono's Node adapter, and the official v1 client's requests go round-robin between them, so
 * the session opened on one is served by the other (the session store and the event store are
 * the ones the standalone server uses across replicas).
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Hono } from 'hono';
import { createServer } from '../../src/assembly/serve.ts';
import { createFetchHandler } from '../../src/fetch.ts';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.ts';
import { ECHO_PLUGIN } from './http-helpers.ts';

interface Replica {
  readonly url: string;
  close(): Promise<void>;
}

async function replica(redisUrl: string): Promise<Replica> {
  const running = await createServer({
    plugins: [ECHO_PLUGIN],
    settings: { MCP_REDIS_URL: redisUrl, MCP_STATE_SECRET: 's'.repeat(32), MCP_LOG_LEVEL: 'silent' },
    transport: 'none',
  });
  const handle = createFetchHandler(running);
  const app = new Hono();
  app.all('/mcp', (c) => handle(c.req.raw));
  const listening = Promise.withResolvers<AddressInfo>();
  const http = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, listening.resolve);
  const { port } = await listening.promise;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      (http as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await running.close();
    },
  };
}

describe('the fetch handler on two replicas sharing Redis', () => {
  let redis: RedisServer;
  let replicas: Replica[];
  before(async () => {
    redis = await startRedisServer();
    replicas = [await replica(redis.url), await replica(redis.url)];
  });
  after(async () => {
    for (const r of replicas ?? []) await r.close();
    await redis?.stop();
  });

  test('the official v1 client, round-robin: a session opened on one replica is served by both', async () => {
    const served: string[] = [];
    let next = 0;
    const transport = new StreamableHTTPClientTransport(new URL(replicas[0]?.url ?? ''), {
      fetch: (_input, init) => {
        // Round-robin, as a load balancer without affinity: the path stays, the replica changes.
        const target = replicas[next++ % replicas.length] as Replica;
        served.push(target.url);
        return fetch(target.url, init);
      },
    });
    const client = new Client({ name: 'fetch-replicas', version: '1.0.0' });
    await client.connect(transport);
    try {
      assert.ok(transport.sessionId, 'a session');
      for (let i = 0; i < 4; i++) {
        const sum = await client.callTool({ name: 'add', arguments: { a: i, b: 1 } });
        assert.deepEqual(sum.structuredContent, { sum: i + 1 });
      }
      const seen: number[] = [];
      await client.callTool({ name: 'progress', arguments: {} }, undefined, {
        onprogress: (p) => seen.push(p.progress),
      });
      assert.deepEqual(seen, [0, 50, 100]);
      assert.equal(new Set(served).size, 2, 'both replicas answered');
      const session = transport.sessionId;
      await transport.terminateSession();
      // Ended on one replica, unknown on both.
      for (const r of replicas) {
        const res = await fetch(r.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': session ?? '',
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        assert.equal(res.status, 404);
      }
    } finally {
      await client.close();
    }
  });
});
