/**
 * The Fastify plugin inside an application, over real sockets: the application of
 * docs/embedding.md (taken from the page itself) keeps its own `GET /hello`, and both
 * official clients list and call its tools through `/mcp` with API-key auth on, the v1 SDK
 * and the v2 client on the 2025 wire, the v2 client pinned to 2026-07-28; the app's own
 * onRequest hook sees every MCP request and its logger writes the MCP request lines. Then
 * `app.close()` on an app with a call in flight, or a plugin's route handler in flight: it
 * answers, and the plugins' onClose hooks run after it.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import mcpToolkit from '../../src/fastify.ts';
import { definePlugin, defineTool } from '../../src/index.ts';
import { docBlocks, layOut } from '../helpers/doc-blocks.ts';
import { until } from '../helpers/until.ts';

const KEY = 'embedding-test-key-0123456789';
const INFO = { name: 'embedding-test', version: '1.0.0' };

interface Exchange {
  method: string;
  url: string;
  status: number;
  requestId: string | null;
  version: string | null;
}

/** A fetch that sends the API key and records each exchange. */
function keyedFetch(log: Exchange[], key = KEY): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('x-api-key', key);
    const res = await fetch(input, { ...init, headers });
    log.push({
      method: init?.method ?? 'GET',
      url: String(input),
      status: res.status,
      requestId: res.headers.get('x-request-id'),
      version: headers.get('mcp-protocol-version'),
    });
    return res;
  };
}

/** Adds a note through any official client and reads the notes back. */
async function exercise(
  client: {
    listTools(): Promise<{ tools: { name: string }[] }>;
    callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  },
  text: string,
): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['add_note', 'list_notes']);
  const added = (await client.callTool({ name: 'add_note', arguments: { text } })) as Record<string, unknown>;
  assert.notEqual(added.isError, true, JSON.stringify(added));
  const listed = (await client.callTool({ name: 'list_notes', arguments: {} })) as {
    content: { type: string; text: string }[];
  };
  assert.match(listed.content[0]?.text ?? '', new RegExp(text));
}

describe('the application of docs/embedding.md', () => {
  const dir = layOut(docBlocks(['docs/embedding.md']), `embedding-${process.pid}`);
  after(() => rmSync(dir, { recursive: true, force: true }));
  const logLines: Record<string, unknown>[] = [];
  let app: FastifyInstance;
  let base: string;

  before(async () => {
    const { buildApp } = (await import(pathToFileURL(path.join(dir, 'embedded-app.ts')).href)) as {
      buildApp(options: { apiKeys: string[]; logger?: unknown }): Promise<FastifyInstance>;
    };
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n')) if (line) logLines.push(JSON.parse(line));
        done();
      },
    });
    app = await buildApp({ apiKeys: [`tester:${KEY}`], logger: { level: 'info', stream } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    assert.ok(address && typeof address === 'object');
    base = `http://127.0.0.1:${address.port}`;
  });
  after(async () => {
    await app?.close();
  });

  test("the app's own GET /hello answers beside MCP, without a key", async () => {
    const res = await fetch(`${base}/hello`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { hello: 'world' });
  });

  test("the app's own readiness probe carries the MCP side's checks", async () => {
    const res = await fetch(`${base}/ready`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { ready: boolean; mcp: Record<string, { ok: boolean }> };
    assert.equal(body.ready, true);
    assert.deepEqual(body.mcp.rateLimit, { ok: true });
  });

  test('MCP without the key is refused with 401; /hello is not', async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 401);
    assert.equal(typeof ((await res.json()) as { error: { code: number } }).error.code, 'number');
    assert.ok(res.headers.get('x-request-id'), "the app's hook ran before the refusal");
  });

  test('SDK v1 Client, 2025 wire, with a session', async () => {
    const log: Exchange[] = [];
    const transport = new HttpV1(new URL(`${base}/mcp`), { fetch: keyedFetch(log) });
    const client = new ClientV1(INFO);
    await client.connect(transport);
    try {
      await exercise(client, 'from v1');
      assert.ok(transport.sessionId, 'a 2025-wire session');
      await transport.terminateSession();
    } finally {
      await client.close();
    }
    const posts = log.filter((e) => e.method === 'POST');
    assert.ok(posts.length >= 4);
    assert.ok(
      posts.every((e) => e.status >= 200 && e.status < 300 && e.requestId),
      JSON.stringify(log),
    );
  });

  test('SDK v2 Client, 2025 wire', async () => {
    const log: Exchange[] = [];
    const client = new ClientV2(INFO);
    await client.connect(new HttpV2(new URL(`${base}/mcp`), { fetch: keyedFetch(log) }));
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
      await exercise(client, 'from v2 on 2025');
    } finally {
      await client.close();
    }
    assert.ok(
      log.every((e) => e.status >= 200 && e.status < 300),
      JSON.stringify(log),
    );
  });

  test('SDK v2 Client pinned to 2026-07-28: stateless, every request seen by the app hook', async () => {
    const log: Exchange[] = [];
    const client = new ClientV2(INFO, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new HttpV2(new URL(`${base}/mcp`), { fetch: keyedFetch(log) }));
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      await exercise(client, 'from v2 on 2026');
    } finally {
      await client.close();
    }
    const posts = log.filter((e) => e.method === 'POST');
    assert.ok(posts.length >= 3);
    for (const e of posts) {
      assert.equal(e.status, 200, JSON.stringify(e));
      assert.equal(e.version, '2026-07-28');
      assert.match(e.requestId ?? '', /^req-/, "the app's onRequest hook ran");
    }
  });

  test("the MCP request lines are written by the app's logger", () => {
    const calls = logLines.filter((l) => l.method === 'tools/call' || l['mcp.method.name'] === 'tools/call');
    assert.ok(calls.length >= 6, `request lines in app.log: ${JSON.stringify(logLines.slice(-5))}`);
  });

  test('the server card is served on the app; the landing page and catalogs only when asked', async () => {
    const card = await fetch(`${base}/mcp/server-card`);
    assert.equal(card.status, 200);
    assert.match(JSON.stringify(await card.json()), /notes-service/);
    const page = await fetch(`${base}/`, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 404, '/ is the application’s');
    assert.equal((await fetch(`${base}/.well-known/mcp/catalog.json`)).status, 404);
  });
});

describe('app.close() with the Fastify plugin', () => {
  test("drains: the call in flight answers, then the plugins' onClose hooks run", async () => {
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = definePlugin({
      name: 'slow',
      register(app) {
        app.onClose(() => void events.push('slow closed'));
        app.add(
          defineTool(
            { name: 'wait', description: 'Answers once released', input: z.object({}) },
            async () => {
              events.push('call started');
              await gate;
              events.push('call answered');
              return 'done';
            },
          ),
        );
      },
    });
    const other = definePlugin({
      name: 'other',
      register(app) {
        app.onClose(() => void events.push('other closed'));
      },
    });
    const app = Fastify({ logger: false });
    app.addHook('onClose', async () => void events.push('app onClose'));
    await app.register(mcpToolkit, {
      plugins: [slow, other],
      settings: { MCP_AUTH: 'api_key', MCP_API_KEYS: [`t:${KEY}`] },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    assert.ok(address && typeof address === 'object');
    const client = new ClientV2(INFO);
    await client.connect(
      new HttpV2(new URL(`http://127.0.0.1:${address.port}/mcp`), { fetch: keyedFetch([]) }),
    );
    const call = client.callTool({ name: 'wait', arguments: {} });
    await until(() => events.includes('call started'), { message: 'the call never started' });
    const closing = app.close();
    // The close is under way (a new request is refused with 503) and is held by the call: a
    // close that did not drain would have closed the plugins, or stopped listening, by now.
    await until(
      async () => {
        const probe = await fetch(`http://127.0.0.1:${address.port}/mcp`, { method: 'POST', body: '{}' });
        await probe.body?.cancel();
        return probe.status === 503;
      },
      { message: 'the app never began closing (no 503 for a new request)' },
    );
    assert.deepEqual(events, ['call started'], 'nothing closes while the call runs');
    release();
    const result = (await call) as { content: { text: string }[] };
    await closing;
    assert.equal(result.content[0]?.text, 'done');
    assert.deepEqual(events, ['call started', 'call answered', 'other closed', 'slow closed', 'app onClose']);
    await client.close().catch(() => {});
  });

  test("drains a plugin route handler in flight before the plugins' onClose hooks run", async () => {
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = definePlugin({
      name: 'slow-route',
      register(app) {
        app.onClose(() => void events.push('plugin closed'));
        app.httpRoute({
          method: 'POST',
          url: '/export',
          auth: false,
          async handler() {
            events.push('route started');
            await gate;
            events.push('route answered');
            return { body: { exported: true } };
          },
        });
      },
    });
    const app = Fastify({ logger: false });
    app.addHook('onClose', async () => void events.push('app onClose'));
    await app.register(mcpToolkit, { plugins: [slow] });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    assert.ok(address && typeof address === 'object');
    const base = `http://127.0.0.1:${address.port}`;
    const answer = fetch(`${base}/export`, { method: 'POST' });
    await until(() => events.includes('route started'), { message: 'the route never started' });
    const closing = app.close();
    await until(
      async () => {
        const probe = await fetch(`${base}/mcp`, { method: 'POST', body: '{}' });
        await probe.body?.cancel();
        return probe.status === 503;
      },
      { message: 'the app never began closing (no 503 for a new request)' },
    );
    assert.deepEqual(events, ['route started'], 'nothing closes while the route handler runs');
    release();
    const res = await answer;
    await closing;
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { exported: true });
    assert.deepEqual(events, ['route started', 'route answered', 'plugin closed', 'app onClose']);
  });
});
