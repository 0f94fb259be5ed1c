/**
 * The Fastify plugin as a guest in an application that has its own `GET /`, its own
 * @fastify/cors and its own auth hook (it sets `request.user` from a header), registered with
 * `{ prefix: '/v1' }` and an `identify` that hands the application's user to us: the endpoint
 * is at /v1/mcp and nowhere else; the application's routes and its preflights are its own; our
 * CORS answers our routes only; no landing page or catalog appears unless asked, and a landing
 * page asked for where the application has `GET /` is a ToolkitError naming the route and the
 * option; a tool, and a plugin's own HTTP route, see the application's user and scopes, and a
 * scoped tool is listed and callable only for a user holding its scope. Real sockets, the official v1 client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import cors from '@fastify/cors';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { mcpToolkit } from '../../src/fastify.ts';
import { definePlugin, defineTool, type Identity, ToolkitError } from '../../src/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    user?: { id: string; roles: string[] };
  }
}

const APP_ORIGIN = 'https://app.example';
const MCP_ORIGIN = 'https://inspector.example';

const whoPlugin = definePlugin({
  name: 'who',
  register(app) {
    app.add(
      defineTool(
        {
          name: 'whoami',
          description: 'Who the caller is',
          output: z.object({ id: z.string(), scopes: z.array(z.string()) }),
        },
        async (_args, ctx) => ({
          id: ctx.identity?.subject ?? 'anonymous',
          scopes: [...(ctx.identity?.scopes ?? [])],
        }),
      ),
      defineTool(
        { name: 'admin_report', description: 'Needs the admin scope', scopes: ['admin'] },
        async () => 'report',
      ),
    );
    // A route of the plugin's own, behind auth: it sees the caller as the tools do.
    app.httpRoute({
      method: 'GET',
      url: '/who',
      handler: (req) => ({
        body: { id: req.identity?.subject ?? 'anonymous', scopes: [...(req.identity?.scopes ?? [])] },
      }),
    });
  },
});

/** The application's own identity: its user, with its roles as our scopes. */
function identify(request: FastifyRequest): Identity | undefined {
  const user = request.user;
  return user ? { clientId: `app:${user.id}`, subject: user.id, scopes: user.roles } : undefined;
}

async function buildApp(options: { landingPage?: boolean } = {}): Promise<FastifyInstance> {
  const app = Fastify();
  // The application's auth: a user from its own header.
  app.addHook('onRequest', async (req) => {
    const id = req.headers['x-user'];
    if (typeof id === 'string') req.user = { id, roles: id === 'ada' ? ['admin'] : [] };
  });
  // Its API with its own @fastify/cors, in the API's scope.
  await app.register(async (api) => {
    await api.register(cors, { origin: APP_ORIGIN });
    api.get('/api/items', async () => ({ items: [1, 2] }));
  });
  app.get('/', async () => ({ app: 'home' }));
  await app.register(mcpToolkit, {
    prefix: '/v1',
    plugins: [whoPlugin],
    settings: { MCP_CORS_ORIGINS: [MCP_ORIGIN], MCP_LOG_LEVEL: 'silent' },
    identify,
    ...options,
  });
  return app;
}

async function connect(url: string, user: string): Promise<Client> {
  const client = new Client({ name: 'guest-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'x-user': user } } }),
  );
  return client;
}

describe('the plugin in an application with its own GET /, @fastify/cors and auth, under prefix /v1', () => {
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    app = await buildApp();
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    assert.ok(address && typeof address === 'object');
    base = `http://127.0.0.1:${address.port}`;
  });
  after(() => app.close());

  test('/v1/mcp is the endpoint; /mcp is not served', async () => {
    const client = await connect(`${base}/v1/mcp`, 'bob');
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'whoami'));
    } finally {
      await client.close();
    }
    const bare = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(bare.status, 404);
  });

  test("the application's routes are its own: GET / and no landing page or catalog of ours", async () => {
    assert.deepEqual(await (await fetch(`${base}/`, { headers: { accept: 'text/html' } })).json(), {
      app: 'home',
    });
    for (const path of [
      '/.well-known/mcp/catalog.json',
      '/.well-known/ai-catalog.json',
      '/v1/.well-known/mcp/catalog.json',
    ]) {
      assert.equal((await fetch(`${base}${path}`)).status, 404, path);
    }
    // The card sits under the endpoint, so it is ours to serve.
    assert.equal((await fetch(`${base}/v1/mcp/server-card`)).status, 200);
  });

  test("preflights: the application's CORS answers its routes, ours answers ours", async () => {
    const preflight = (path: string, origin: string) =>
      fetch(`${base}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
    const appOwn = await preflight('/api/items', APP_ORIGIN);
    assert.equal(appOwn.headers.get('access-control-allow-origin'), APP_ORIGIN);
    assert.doesNotMatch(appOwn.headers.get('access-control-allow-headers') ?? '', /x-api-key|mcp-session-id/);
    const ourOriginOnApp = await preflight('/api/items', MCP_ORIGIN);
    // The application's @fastify/cors answers as it is configured; nothing of ours is added.
    assert.notEqual(ourOriginOnApp.headers.get('access-control-allow-origin'), MCP_ORIGIN);
    assert.doesNotMatch(ourOriginOnApp.headers.get('access-control-allow-headers') ?? '', /mcp-session-id/);
    const ours = await preflight('/v1/mcp', MCP_ORIGIN);
    assert.equal(ours.status, 204);
    assert.equal(ours.headers.get('access-control-allow-origin'), MCP_ORIGIN);
    assert.match(ours.headers.get('access-control-allow-headers') ?? '', /mcp-session-id/);
    // A plugin's own route is ours too: its preflight is answered for our origins alone.
    const route = await preflight('/v1/who', MCP_ORIGIN);
    assert.equal(route.status, 204);
    assert.equal(route.headers.get('access-control-allow-origin'), MCP_ORIGIN);
    const otherOnRoute = await preflight('/v1/who', APP_ORIGIN);
    assert.equal(otherOnRoute.headers.get('access-control-allow-origin'), null);
  });

  test("a tool sees the application's user and scopes; a scoped tool is the admin's alone", async () => {
    const ada = await connect(`${base}/v1/mcp`, 'ada');
    const bob = await connect(`${base}/v1/mcp`, 'bob');
    try {
      const seen = await ada.callTool({ name: 'whoami', arguments: {} });
      assert.deepEqual(seen.structuredContent, { id: 'ada', scopes: ['admin'] });
      assert.ok((await ada.listTools()).tools.some((t) => t.name === 'admin_report'));
      assert.equal((await ada.callTool({ name: 'admin_report', arguments: {} })).isError, undefined);
      assert.deepEqual((await bob.callTool({ name: 'whoami', arguments: {} })).structuredContent, {
        id: 'bob',
        scopes: [],
      });
      assert.ok(!(await bob.listTools()).tools.some((t) => t.name === 'admin_report'), 'hidden from bob');
      await assert.rejects(bob.callTool({ name: 'admin_report', arguments: {} }));
    } finally {
      await ada.close();
      await bob.close();
    }
  });

  test("a plugin's own route sees the application's user and scopes too", async () => {
    const who = async (headers: Record<string, string>) => {
      const res = await fetch(`${base}/v1/who`, { headers });
      assert.equal(res.status, 200);
      return res.json();
    };
    assert.deepEqual(await who({ 'x-user': 'ada' }), { id: 'ada', scopes: ['admin'] });
    assert.deepEqual(await who({}), { id: 'anonymous', scopes: [] });
    assert.equal(
      (await fetch(`${base}/who`)).status,
      404,
      'the route is under the prefix, as the endpoint is',
    );
  });
});

test('an application-wide @fastify/cors and ours start side by side', async () => {
  const app = Fastify();
  await app.register(cors, { origin: APP_ORIGIN });
  await app.register(mcpToolkit, {
    plugins: [whoPlugin],
    settings: { MCP_CORS_ORIGINS: [MCP_ORIGIN], MCP_LOG_LEVEL: 'silent' },
  });
  await app.ready();
  const res = await app.inject({
    method: 'OPTIONS',
    url: '/mcp',
    headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST' },
  });
  assert.equal(
    res.statusCode,
    204,
    'the application-wide CORS answers every preflight, as it is configured to',
  );
  await app.close();
});

test("a plugin's route on the endpoint's path under the prefix: a ToolkitError naming both", async () => {
  const clashing = definePlugin({
    name: 'clashing',
    register(app) {
      app.httpRoute({ method: 'GET', url: '/mcp', handler: () => ({ body: 'mine' }) });
    },
  });
  const app = Fastify();
  try {
    await assert.rejects(
      (async () => {
        await app.register(mcpToolkit, {
          prefix: '/v1',
          plugins: [clashing],
          settings: { MCP_LOG_LEVEL: 'silent' },
        });
        await app.ready();
      })(),
      (err: unknown) => err instanceof ToolkitError && /GET \/v1\/mcp of plugin "clashing"/.test(err.message),
    );
  } finally {
    await app.close().catch(() => {});
  }
});

test('a landing page asked for where the application has GET /: a ToolkitError naming the route and the option', async () => {
  const app = Fastify();
  app.get('/', async () => 'home');
  try {
    await assert.rejects(
      (async () => {
        await app.register(mcpToolkit, {
          plugins: [whoPlugin],
          landingPage: true,
          settings: { MCP_LOG_LEVEL: 'silent' },
        });
        await app.ready();
      })(),
      (err: unknown) =>
        err instanceof ToolkitError && /route at \/,/.test(err.message) && /landingPage/.test(err.message),
    );
  } finally {
    await app.close().catch(() => {});
  }
});
