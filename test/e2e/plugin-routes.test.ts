/**
 * Plugins' HTTP routes (`app.httpRoute`) over real sockets on 127.0.0.1, served by the
 * standalone server (the real CLI, `run --transport http`) and by the Fastify plugin inside an
 * application: the admin route answers 401 without a key and 200 with one, the webhook
 * (`auth: false`) answers without one, the per-client rate limit applies (429 past the
 * bucket), each request has its SERVER span `<METHOD> <route>` (the handler's own span its
 * child) and one log line. A route on the MCP endpoint's path, or one two plugins declare,
 * stops start-up naming both (exit code 2 from the CLI); doctor lists the routes; on stdio
 * they are not served, and one info line says so.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { doctor } from '../../src/cli/doctor.ts';
import mcpToolkit, { type McpToolkitOptions } from '../../src/fastify.ts';
import clashA from '../fixtures/routes/clash-a.ts';
import clashB from '../fixtures/routes/clash-b.ts';
import clashMcp from '../fixtures/routes/clash-mcp.ts';
import hooksPlugin, { signature } from '../fixtures/routes/plugin.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import {
  REPO_ROOT,
  type SpawnedHttpServer,
  spawnCli,
  spawnHttpServer,
  spawnStdioServer,
} from '../helpers/spawn-server.ts';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'routes');
const PLUGIN = path.join(FIXTURES, 'plugin.ts');
const KEY = 'admin-key-0123456789abcdef';
/** A bucket of 4 that refills at 1 per second: a burst of 8 quick requests runs it dry. */
const LIMITS = { MCP_RATE_LIMIT_RPS: '1', MCP_RATE_LIMIT_BURST: '4' };

const PAYLOAD = JSON.stringify({ action: 'opened', number: 7 });

function postHook(base: string, body = PAYLOAD, sig = signature(body)): Promise<Response> {
  return fetch(`${base}/hooks/github`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': sig },
    body,
  });
}

/** What both transports must answer, in order (the webhook's bucket is the test client's address). */
async function exerciseRoutes(base: string): Promise<void> {
  const anonymous = await fetch(`${base}/admin/stats`);
  assert.equal(anonymous.status, 401);
  assert.equal(((await anonymous.json()) as { error?: { code?: number } }).error?.code, -32030);

  const hook = await postHook(base);
  assert.equal(hook.status, 202, await hook.clone().text());
  assert.deepEqual(await hook.json(), { received: 'push', action: 'opened' });
  const forged = await postHook(base, PAYLOAD, 'sha256=00');
  assert.equal(forged.status, 401, 'the plugin answers its own 401 on a public route');

  const admin = await fetch(`${base}/admin/stats?window=1h`, { headers: { 'x-api-key': KEY } });
  assert.equal(admin.status, 200);
  assert.equal(admin.headers.get('cache-control'), 'no-store');
  assert.match(admin.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(await admin.json(), { events: 1, caller: 'admin', query: { window: '1h' } });

  const burst = await Promise.all(Array.from({ length: 8 }, () => postHook(base)));
  const limited = burst.filter((r) => r.status === 429);
  assert.ok(limited.length >= 2, `statuses: ${burst.map((r) => r.status).join(',')}`);
  const first = limited[0] as Response;
  assert.ok(Number(first.headers.get('retry-after')) >= 1);
  assert.equal(((await first.json()) as { error?: { code?: number } }).error?.code, -32038);
  await Promise.all(burst.map((r) => (r.bodyUsed ? undefined : r.body?.cancel())));
}

function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('the standalone server', () => {
  let receiver: OtlpReceiver;
  let server: SpawnedHttpServer;
  before(async () => {
    receiver = await startOtlpReceiver();
    server = await spawnHttpServer({
      MCP_PLUGINS: PLUGIN,
      MCP_AUTH: 'api_key',
      MCP_API_KEYS: `admin:${KEY}`,
      ...LIMITS,
      MCP_LOG_LEVEL: 'info',
      MCP_LOG_FORMAT: 'json',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'routes-e2e',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
  });
  after(async () => {
    await server?.stop();
    await receiver?.close();
  });

  test('serves the routes behind auth and the rate limit, traced and logged', async () => {
    const base = new URL(server.url).origin;
    await exerciseRoutes(base);
    // The MCP endpoint is still the MCP endpoint.
    const mcp = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(mcp.status, 401);
    await mcp.body?.cancel();
    assert.equal(await server.stop(), 0);

    const lines = jsonLines(server.stderr());
    const routeLines = lines.filter((l) => l.msg === 'http route');
    const adminLine = routeLines.find((l) => l.method === 'GET /admin/stats');
    assert.equal(adminLine?.status, 200);
    assert.equal(adminLine?.clientId, 'admin');
    assert.equal(adminLine?.plugin, 'hooks');
    assert.equal(routeLines.filter((l) => l.method === 'GET /admin/stats').length, 1, 'one line per request');
    assert.ok(routeLines.some((l) => l.method === 'POST /hooks/github' && l.status === 202));

    const spans = await receiver.waitForSpans((s) => s.resource['service.name'] === 'routes-e2e', 10_000, 3);
    const admin = spans.find((s) => s.name === 'GET /admin/stats');
    assert.ok(admin, JSON.stringify(spans.map((s) => s.name)));
    assert.equal(admin.kind, 'SERVER');
    assert.equal(admin.attributes['http.route'], '/admin/stats');
    assert.equal(admin.attributes['http.request.method'], 'GET');
    assert.equal(admin.attributes['http.response.status_code'], 200);
    assert.equal(admin.attributes['mcp.client.id'], 'admin');
    assert.equal(adminLine?.trace_id, admin.traceId);
    const hook = spans.find(
      (s) => s.name === 'POST /hooks/github' && s.attributes['http.response.status_code'] === 202,
    );
    assert.ok(hook);
    const own = spans.find((s) => s.name === 'record event' && s.parentSpanId === hook.spanId);
    assert.equal(own?.traceId, hook.traceId, 'the handler runs in the route span’s context');
  });
});

describe('the Fastify plugin', () => {
  let app: FastifyInstance;
  let base: string;
  const lines: Record<string, unknown>[] = [];
  before(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...jsonLines(String(chunk)));
        done();
      },
    });
    app = Fastify({ logger: false });
    app.get('/hello', async () => ({ hello: 'world' }));
    await app.register(mcpToolkit, {
      plugins: [hooksPlugin],
      settings: {
        MCP_AUTH: 'api_key',
        MCP_API_KEYS: [`admin:${KEY}`],
        MCP_RATE_LIMIT_RPS: 1,
        MCP_RATE_LIMIT_BURST: 4,
      },
      logger: pino({ level: 'info' }, sink),
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(() => app?.close());

  test('serves the routes behind auth and the rate limit, logged by the given logger', async () => {
    await exerciseRoutes(base);
    // The application's own route is not the toolkit's: no auth, no rate limit.
    const hellos = await Promise.all(Array.from({ length: 6 }, () => fetch(`${base}/hello`)));
    assert.deepEqual(
      hellos.map((r) => r.status),
      [200, 200, 200, 200, 200, 200],
    );
    assert.ok(
      lines.some((l) => l.msg === 'http route' && l.method === 'GET /admin/stats' && l.clientId === 'admin'),
    );
  });

  test('a route on the MCP path, or on another plugin’s route, fails the registration naming both', async () => {
    const register = async (plugins: McpToolkitOptions['plugins']) => {
      const other = Fastify({ logger: false });
      try {
        await other.register(mcpToolkit, { plugins });
      } finally {
        await other.close();
      }
    };
    await assert.rejects(
      register([clashMcp]),
      /HTTP route POST \/mcp of plugin "clash-mcp" clashes with the MCP endpoint \(\/mcp\)/,
    );
    await assert.rejects(
      register([clashA, clashB]),
      /Duplicate HTTP route GET \/status: declared by plugin "clash-a" and again by plugin "clash-b"/,
    );
  });
});

describe('start-up and doctor', () => {
  const HTTP_RUN = ['run', '--transport', 'http', '--host', '127.0.0.1', '--port', '0'];

  test('the CLI exits with code 2 on a route that takes the MCP path, naming both', async () => {
    const proc = spawnCli(HTTP_RUN, { MCP_PLUGINS: path.join(FIXTURES, 'clash-mcp.ts') });
    assert.equal(await proc.exited, 2, proc.stderr());
    assert.match(
      proc.stderr(),
      /HTTP route POST \/mcp of plugin \\?"clash-mcp\\?" clashes with the MCP endpoint \(\/mcp\)/,
    );
  });

  test('the CLI exits with code 2 on a route two plugins declare, naming both', async () => {
    const plugins = `${path.join(FIXTURES, 'clash-a.ts')},${path.join(FIXTURES, 'clash-b.ts')}`;
    const proc = spawnCli(HTTP_RUN, { MCP_PLUGINS: plugins });
    assert.equal(await proc.exited, 2, proc.stderr());
    assert.match(
      proc.stderr(),
      /GET \/status: declared by plugin \\?"clash-a\\?" and again by plugin \\?"clash-b\\?"/,
    );
  });

  test('on stdio the routes are not served, and one info line says so', async () => {
    const peer = spawnStdioServer({ MCP_PLUGINS: PLUGIN, MCP_LOG_LEVEL: 'info', MCP_LOG_FORMAT: 'json' });
    try {
      const reply = await peer.request({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      assert.ok(reply.result);
      const notServed = jsonLines(peer.stderr()).filter((l) => /not served on stdio/.test(String(l.msg)));
      assert.equal(notServed.length, 1, peer.stderr());
      assert.equal(notServed[0]?.level, 30);
      assert.deepEqual(notServed[0]?.routes, ['POST /hooks/github', 'GET /admin/stats']);
    } finally {
      peer.end();
      await peer.stop();
    }
  });

  test('doctor lists each plugin’s routes, and fails on a clash', async () => {
    const out: string[] = [];
    assert.equal(await doctor({ MCP_PLUGINS: PLUGIN }, (l) => out.push(l)), 0, out.join('\n'));
    assert.ok(out.includes('  plugin hooks: POST /hooks/github (public: auth: false)'), out.join('\n'));
    assert.ok(out.includes('  plugin hooks: GET /admin/stats'), out.join('\n'));
    assert.ok(out.includes('✓ HTTP routes: 2, none on a path the server uses'));

    const clash: string[] = [];
    assert.equal(await doctor({ MCP_PLUGINS: path.join(FIXTURES, 'clash-mcp.ts') }, (l) => clash.push(l)), 1);
    assert.ok(
      clash.some((l) => l.startsWith('✗ HTTP routes:') && l.includes('"clash-mcp"') && l.includes('(/mcp)')),
    );
  });
});
