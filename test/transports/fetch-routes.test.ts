/**
 * The fetch handler serves the plugins' HTTP routes (`app.httpRoute`) beside the MCP endpoint,
 * with plain `Request` objects and under Hono's Node adapter: a route behind auth answers 401
 * without a key and the handler's answer with one; a public route (`auth: false`) answers
 * without; `:name` parameters, repeated query keys, text, JSON and empty answers, a handler
 * that throws (500), a bad JSON body (-32700), a body over the limit (413), the Host check,
 * a method the route does not declare (404); a handler in flight is counted for a graceful
 * stop; a handler created with `identify` gives a route the application's caller. A route on one of the transport's own paths stops createFetchHandler, naming both.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { pino } from 'pino';
import { buildMcpServer, type McpServer } from '../../src/assembly/server.ts';
import { createAuthenticator } from '../../src/auth/create.ts';
import { ErrorCode, ProtocolError } from '../../src/base/errors.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { createFetchHandler, type FetchHandler } from '../../src/fetch.ts';
import { definePlugin } from '../../src/index.ts';
import type { LoadedPlugin, PluginDefinition } from '../../src/plugin/define.ts';
import clashMcp from '../fixtures/routes/clash-mcp.ts';
import hooksPlugin, { signature } from '../fixtures/routes/plugin.ts';
import { until } from '../helpers/until.ts';

const ORIGIN = 'http://127.0.0.1:8000';
const KEY = 'admin-key-0123456789abcdef';
const PAYLOAD = JSON.stringify({ action: 'opened', number: 7 });

let release: () => void = () => {};
/** Routes that show what a handler is given and may return. */
const extras = definePlugin({
  name: 'extras',
  register(app) {
    app.httpRoute({
      method: 'GET',
      url: '/items/:id/tags/:tag',
      auth: false,
      handler: (req) => ({ body: { params: req.params, query: req.query, path: req.path, url: req.url } }),
    });
    app.httpRoute({ method: 'GET', url: '/text', auth: false, handler: () => ({ body: 'plain words' }) });
    app.httpRoute({ method: 'DELETE', url: '/nothing', auth: false, handler: () => undefined });
    app.httpRoute({
      method: 'POST',
      url: '/fails',
      auth: false,
      handler: () => {
        throw new Error('boom');
      },
    });
    app.httpRoute({
      method: 'POST',
      url: '/slow',
      auth: false,
      handler: async (req) => {
        await new Promise<void>((r) => {
          release = r;
        });
        return { body: { echoed: req.body } };
      },
    });
  },
});

async function buildServer(
  definitions: readonly PluginDefinition<never>[],
  env: Record<string, string> = {},
): Promise<McpServer> {
  const settings = parseSettings({
    MCP_AUTH: 'api_key',
    MCP_API_KEYS: `admin:${KEY}`,
    MCP_MAX_BODY_BYTES: '4096',
    ...env,
  });
  const plugins = definitions.map((definition) => ({ definition, settings: {} }) as unknown as LoadedPlugin);
  const auth = createAuthenticator(settings, {
    audience: `${ORIGIN}/mcp`,
    resourceMetadataUrl: `${ORIGIN}/mcp`,
  });
  return buildMcpServer({ settings, plugins, logger: pino({ level: 'silent' }), auth });
}

function postHook(base: string, body = PAYLOAD, sig = signature(body)): Request {
  return new Request(`${base}/hooks/github`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': sig },
    body,
  });
}

async function errorCode(res: Response): Promise<number | undefined> {
  return ((await res.json()) as { error?: { code?: number } }).error?.code;
}

/** What both the plain handler and the handler under Hono answer for the fixture's routes. */
async function exerciseRoutes(call: (request: Request) => Promise<Response>, base: string): Promise<void> {
  const anonymous = await call(new Request(`${base}/admin/stats`));
  assert.equal(anonymous.status, 401);
  assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer/);
  assert.equal(await errorCode(anonymous), ErrorCode.Unauthorized);

  const hook = await call(postHook(base));
  assert.equal(hook.status, 202, await hook.clone().text());
  assert.deepEqual(await hook.json(), { received: 'push', action: 'opened' });
  const forged = await call(postHook(base, PAYLOAD, 'sha256=00'));
  assert.equal(forged.status, 401, 'the plugin answers its own 401 on a public route');
  assert.deepEqual(await forged.json(), { error: 'bad signature' });

  const admin = await call(new Request(`${base}/admin/stats?window=1h`, { headers: { 'x-api-key': KEY } }));
  assert.equal(admin.status, 200);
  assert.equal(admin.headers.get('cache-control'), 'no-store');
  assert.match(admin.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(await admin.json(), { events: 1, caller: 'admin', query: { window: '1h' } });
}

describe('the fetch handler serves the plugins’ routes, with plain Request objects', () => {
  let server: McpServer;
  let handle: FetchHandler;
  before(async () => {
    server = await buildServer([hooksPlugin, extras]);
    handle = createFetchHandler(server);
  });
  after(() => server.close());

  test('behind the same auth unless auth: false; the handler’s status, headers and body', async () => {
    await exerciseRoutes((request) => handle(request), ORIGIN);
  });

  test('parameters, query, text, empty and failing answers', async () => {
    const item = await handle(new Request(`${ORIGIN}/items/a%20b/tags/x?k=1&k=2&one=z`));
    assert.equal(item.status, 200);
    assert.deepEqual(await item.json(), {
      params: { id: 'a b', tag: 'x' },
      query: { k: ['1', '2'], one: 'z' },
      path: '/items/a%20b/tags/x',
      url: '/items/a%20b/tags/x?k=1&k=2&one=z',
    });
    const text = await handle(new Request(`${ORIGIN}/text`));
    assert.equal(text.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(await text.text(), 'plain words');
    const nothing = await handle(new Request(`${ORIGIN}/nothing`, { method: 'DELETE' }));
    assert.equal(nothing.status, 204);
    assert.equal(await nothing.text(), '');
    const fails = await handle(new Request(`${ORIGIN}/fails`, { method: 'POST' }));
    assert.equal(fails.status, 500);
    assert.deepEqual(await fails.json(), { error: 'internal error' });
  });

  test('refusals: another method or path 404, bad JSON 400, too large 413, a foreign Host 403', async () => {
    const wrongMethod = await handle(new Request(`${ORIGIN}/text`, { method: 'POST' }));
    assert.equal(wrongMethod.status, 404);
    assert.equal(await errorCode(wrongMethod), ErrorCode.NotFound);
    const unknown = await handle(new Request(`${ORIGIN}/items/1`));
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
    const badJson = await handle(postHook(ORIGIN, '{"action":', 'sha256=00'));
    assert.equal(badJson.status, 400);
    assert.equal(await errorCode(badJson), ErrorCode.ParseError);
    const big = await handle(postHook(ORIGIN, JSON.stringify({ pad: 'x'.repeat(5000) })));
    assert.equal(big.status, 413);
    assert.equal(await errorCode(big), ErrorCode.PayloadTooLarge);
    const foreign = await handle(new Request(`${ORIGIN}/text`, { headers: { host: 'evil.example' } }));
    assert.equal(foreign.status, 403);
    assert.equal(await errorCode(foreign), ErrorCode.HostNotAllowed);
  });

  test('a handler in flight is counted, for a graceful stop to wait on', async () => {
    assert.equal(server.routeInflightCount, 0);
    const answer = handle(
      new Request(`${ORIGIN}/slow`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"n":1}',
      }),
    );
    await until(() => server.routeInflightCount === 1, { message: 'the slow route never started' });
    release();
    const res = await answer;
    assert.deepEqual(await res.json(), { echoed: { n: 1 } });
    assert.equal(server.routeInflightCount, 0);
  });
});

describe("the plugins' routes with the application's identify", () => {
  let server: McpServer;
  let handle: FetchHandler;
  before(async () => {
    server = await buildServer([hooksPlugin]);
    handle = createFetchHandler(server, {
      identify: (request) => {
        const user = request.headers.get('x-user');
        if (user === 'blocked')
          throw new ProtocolError(ErrorCode.Forbidden, 'blocked by the application', { httpStatus: 403 });
        return user ? { clientId: `app:${user}`, subject: user, scopes: [] } : undefined;
      },
    });
  });
  after(() => server.close());

  const stats = (headers: Record<string, string>) =>
    handle(new Request(`${ORIGIN}/admin/stats`, { headers }));

  test("a route behind auth sees the application's caller; without one, MCP_AUTH decides", async () => {
    const ada = await stats({ 'x-user': 'ada' });
    assert.equal(ada.status, 200);
    assert.equal(((await ada.json()) as { caller: string }).caller, 'app:ada');
    const keyed = await stats({ 'x-api-key': KEY });
    assert.equal(((await keyed.json()) as { caller: string }).caller, 'admin');
    const nobody = await stats({});
    assert.equal(nobody.status, 401);
    assert.equal(await errorCode(nobody), ErrorCode.Unauthorized);
  });

  test('what identify throws is the answer, as on the MCP endpoint', async () => {
    const blocked = await stats({ 'x-user': 'blocked', 'x-api-key': KEY });
    assert.equal(blocked.status, 403);
    assert.equal(await errorCode(blocked), ErrorCode.Forbidden);
  });
});

describe('the clash rule', () => {
  test('a route on one of the transport’s own paths stops createFetchHandler, naming both', async () => {
    const server = await buildServer([clashMcp]);
    try {
      assert.throws(
        () => createFetchHandler(server),
        /HTTP route POST \/mcp of plugin "clash-mcp" clashes with the MCP endpoint \(\/mcp\)/,
      );
      // With the endpoint at another path, /mcp is the plugin's route (behind auth: 401, not 404).
      const handle = createFetchHandler(server, { path: '/api/mcp' });
      const mine = await handle(
        new Request(`${ORIGIN}/mcp`, { method: 'POST', headers: { 'x-api-key': KEY } }),
      );
      assert.equal(await mine.text(), 'mine');
    } finally {
      await server.close();
    }
  });
});

describe('the plugins’ routes under Hono (Node adapter), over the network', () => {
  let server: McpServer;
  let close: () => Promise<void>;
  let base: string;
  before(async () => {
    server = await buildServer([hooksPlugin]);
    const handle = createFetchHandler(server);
    const app = new Hono();
    app.get('/hello', (c) => c.json({ hello: 'world' }));
    app.all('*', (c) => handle(c.req.raw));
    const listening = Promise.withResolvers<AddressInfo>();
    const http = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, listening.resolve);
    base = `http://127.0.0.1:${(await listening.promise).port}`;
    close = async () => {
      (http as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await server.close();
    };
  });
  after(() => close());

  test('the routes answer as over Fastify; the app’s own route is untouched', async () => {
    await exerciseRoutes((request) => fetch(request), base);
    const hello = await fetch(`${base}/hello`);
    assert.deepEqual(await hello.json(), { hello: 'world' });
  });
});
