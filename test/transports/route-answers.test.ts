/**
 * What a plugin's HTTP route handler may return, on both hosts of the edge (the Fastify
 * transport and the fetch handler): `{ status, headers, body }` or nothing. Anything else is
 * the plugin's mistake, not an empty answer: Fastify's habit `return { hook: 'ok' }`, a fetch
 * `Response`, a status that is no HTTP status. Each is answered 500 `{"error":"internal error"}`
 * and logged once with the plugin, the route and what came back; the route types refuse the
 * first at compile time (the `@ts-expect-error` lines below fail the type check if they stop
 * being errors).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildMcpServer, type McpServer } from '../../src/assembly/server.ts';
import { httpOptions } from '../../src/assembly/transport-options.ts';
import type { HttpRouteHandler } from '../../src/base/http-route.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { createFetchHandler } from '../../src/fetch.ts';
import { definePlugin } from '../../src/index.ts';
import type { LoadedPlugin } from '../../src/plugin/define.ts';
import { buildHttpApp } from '../../src/transports/http/server.ts';

// The route types say it too: an object with none of the answer's keys is not an answer.
// @ts-expect-error Fastify's habit: the JSON to send belongs in `body`
const fastifyHabit: HttpRouteHandler = () => ({ hook: 'ok' });
// @ts-expect-error the same from an async handler
const asyncHabit: HttpRouteHandler = async () => ({ hook: 'ok' });

const wrong = definePlugin({
  name: 'wrong',
  register(app) {
    app.httpRoute({ method: 'GET', url: '/habit', auth: false, handler: fastifyHabit });
    app.httpRoute({ method: 'POST', url: '/habit-async', auth: false, handler: asyncHabit });
    app.httpRoute({
      method: 'GET',
      url: '/mixed',
      auth: false,
      handler: () => ({ status: 200, body: 'fine', hook: 'stray' }) as never,
    });
    app.httpRoute({
      method: 'GET',
      url: '/response',
      auth: false,
      handler: () => new Response('x') as never,
    });
    app.httpRoute({ method: 'GET', url: '/bad-status', auth: false, handler: () => ({ status: 42 }) });
    app.httpRoute({ method: 'GET', url: '/right', auth: false, handler: () => ({ body: { hook: 'ok' } }) });
  },
});

/** The cases: route, what the log's error must name. */
const CASES = [
  { method: 'GET', path: '/habit', names: /"hook".*return \{ body: \{/ },
  { method: 'POST', path: '/habit-async', names: /"hook"/ },
  { method: 'GET', path: '/mixed', names: /"hook"/ },
  { method: 'GET', path: '/response', names: /a Response/ },
  { method: 'GET', path: '/bad-status', names: /status 42/ },
] as const;

interface LogLine {
  level: number;
  msg: string;
  plugin?: string;
  route?: string;
  err?: { message: string };
}

async function build(lines: LogLine[]): Promise<McpServer> {
  const settings = parseSettings({ MCP_HTTP_HOST: '127.0.0.1', MCP_HTTP_PORT: '0' });
  const logger = pino(
    { level: 'error' },
    { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
  );
  const plugins = [{ definition: wrong, settings: {} }] as unknown as LoadedPlugin[];
  return buildMcpServer({ settings, plugins, logger });
}

/** Each host's way to send one request: status, body. */
type Send = (method: string, path: string) => Promise<{ status: number; body: string }>;

function checks(name: string, setup: (lines: LogLine[]) => Promise<{ send: Send; close(): Promise<void> }>) {
  describe(`a route's answer of the wrong shape, ${name}`, () => {
    const lines: LogLine[] = [];
    let host: { send: Send; close(): Promise<void> };
    before(async () => {
      host = await setup(lines);
    });
    after(() => host.close());

    for (const c of CASES) {
      test(`${c.method} ${c.path} is answered 500 and logged with the plugin and the route`, async () => {
        lines.length = 0;
        const { status, body } = await host.send(c.method, c.path);
        assert.equal(status, 500);
        assert.deepEqual(JSON.parse(body), { error: 'internal error' });
        const logged = lines.filter((l) => l.plugin === 'wrong');
        assert.equal(logged.length, 1, JSON.stringify(lines));
        const [line] = logged as [LogLine];
        assert.equal(line.route, `${c.method} ${c.path}`);
        assert.match(line.msg, new RegExp(`plugin "wrong": HTTP route ${c.method} ${c.path} failed`));
        assert.match(line.err?.message ?? '', c.names);
      });
    }

    test('the same JSON in body is the answer', async () => {
      const { status, body } = await host.send('GET', '/right');
      assert.equal(status, 200);
      assert.deepEqual(JSON.parse(body), { hook: 'ok' });
    });
  });
}

checks('on the Fastify transport', async (lines) => {
  const server = await build(lines);
  const app: FastifyInstance = await buildHttpApp(server, httpOptions(server.settings));
  return {
    async send(method, path) {
      const res = await app.inject({ method: method as 'GET', url: path, headers: { host: '127.0.0.1' } });
      return { status: res.statusCode, body: res.body };
    },
    async close() {
      await app.close();
      await server.close();
    },
  };
});

checks('through the fetch handler', async (lines) => {
  const server = await build(lines);
  const handle = createFetchHandler(server);
  return {
    async send(method, path) {
      const res = await handle(new Request(`http://127.0.0.1${path}`, { method }));
      return { status: res.status, body: await res.text() };
    },
    close: () => server.close(),
  };
});
