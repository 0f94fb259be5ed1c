/**
 * Readiness means "can serve now" (docs/deployment.md, "What gates readiness"), with real
 * processes over real HTTP: a setting that can never work either stops start-up (exit code 2,
 * doctor's line) or is worked around at start (the openapi plugin leaves out the operations
 * whose credentials are missing) with /readyz green; a dependency that can come back (Redis)
 * turns /readyz red while it is away and green again when it is back, the sequence a
 * Kubernetes rollout with `maxUnavailable: 0` waits on. And a drain a load balancer can see:
 * on SIGTERM, /readyz turns red for MCP_SHUTDOWN_DELAY_MS while every request is still served.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { doctor } from '../../src/cli/doctor.ts';
import { startRedisServer } from '../helpers/redis-server.ts';
import { spawnCli, spawnHttpServer } from '../helpers/spawn-server.ts';
import { BEARER_TOKEN, type FakeApi, PETSTORE_PATH, startFake } from '../plugins/openapi/helpers.ts';
import { readyz, until } from '../scale/cluster.ts';

const EXIT_WAIT_MS = 20_000;

describe('openapi: a bearer token set, MCP_OPENAPI_API_KEY not', () => {
  let api: FakeApi;
  before(async () => {
    api = await startFake();
  });
  after(() => api?.close());
  const env = () => ({
    MCP_PLUGINS: 'openapi',
    MCP_OPENAPI_SPEC: PETSTORE_PATH,
    MCP_OPENAPI_BASE_URL: api.baseUrl,
    MCP_OPENAPI_BEARER_TOKEN: BEARER_TOKEN,
  });

  test('serves without the operations that need the key, logs them once, and /readyz is 200', async () => {
    const server = await spawnHttpServer(env());
    try {
      const r = await readyz(server);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.checks['plugin:openapi'], { ok: true });

      const res = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'rollout', version: '1' },
          },
        }),
      });
      const session = res.headers.get('mcp-session-id') ?? '';
      await res.text();
      const listed = await fetch(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      const text = await listed.text();
      const json = JSON.parse(text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null'));
      const names = (json.result.tools as { name: string }[]).map((t) => t.name);
      for (const leftOut of ['createPet', 'replacePet', 'deletePet']) assert.ok(!names.includes(leftOut));
      assert.ok(names.includes('adminStats'), 'the bearer token serves the operation that needs it');
      assert.ok(names.includes('listPets'));

      const warnings = server
        .stderr()
        .split('\n')
        .filter((line) => line.includes('operations left out'));
      assert.equal(warnings.length, 1, server.stderr());
      assert.match(warnings[0] ?? '', /DELETE \/pets\/\{petId\} \(deletePet\) need MCP_OPENAPI_API_KEY/);
    } finally {
      await server.stop();
    }
    // mcp-toolkit doctor still reports them.
    const lines: string[] = [];
    const code = await doctor(env(), (line) => lines.push(line));
    assert.equal(code, 1);
    assert.match(
      lines.join('\n'),
      /^✗ plugin openapi: openapi credentials \(not offered: .*\(deletePet\) need MCP_OPENAPI_API_KEY/m,
    );
  });

  test("a health operation that is not offered stops start-up with exit code 2 and doctor's line", async () => {
    // deletePet is left out (no key): the probe could never pass, so the server does not start.
    const proc = spawnCli(['run', '--transport', 'http', '--host', '127.0.0.1', '--port', '0'], {
      ...env(),
      MCP_OPENAPI_HEALTH_OPERATION: 'deletePet',
    });
    const code = await Promise.race([
      proc.exited,
      new Promise<string>((r) => setTimeout(() => r('still running'), EXIT_WAIT_MS).unref()),
    ]);
    await proc.stop();
    assert.equal(code, 2, proc.stderr());
    assert.match(
      proc.stderr(),
      /cannot start:\\nplugin openapi: openapi API answers \(MCP_OPENAPI_HEALTH_OPERATION names \\"deletePet\\"/,
    );
    assert.doesNotMatch(proc.stderr(), /listening/);
  });
});

test('a rollout over real Redis: ready, Redis lost → 503 naming sharedState, Redis back → ready', async () => {
  const redis = await startRedisServer();
  try {
    const server = await spawnHttpServer({
      MCP_REDIS_URL: redis.url,
      MCP_STATE_SECRET: 'rollout-state-secret-0123456789abcdef',
      // Calls are refused while the rate-limit store is away, so the replica is not ready.
      MCP_RATE_LIMIT_FAIL: 'closed',
    });
    try {
      const first = await readyz(server);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.status, 'ready');

      await redis.stop();
      await until(async () => (await readyz(server)).status === 503, 10_000, '/readyz to turn 503');
      const lost = await readyz(server);
      assert.equal(lost.body.status, 'not_ready');
      assert.match(lost.body.checks.sharedState?.detail ?? '', /Redis unreachable/);
      assert.equal(lost.body.checks.rateLimit?.ok, false);

      await redis.restart();
      await until(async () => (await readyz(server)).status === 200, 15_000, '/readyz to turn 200 again');
      const back = await readyz(server);
      assert.equal(back.body.status, 'ready');
      assert.deepEqual(back.body.checks.sharedState, { ok: true });
    } finally {
      await server.stop();
    }
  } finally {
    await redis.stop();
  }
});

test('SIGTERM with MCP_SHUTDOWN_DELAY_MS: /readyz 503 while requests are still answered, then the listener closes and the process exits 0', async () => {
  const server = await spawnHttpServer({
    MCP_PLUGINS: './test/fixtures/echo-plugin.ts',
    MCP_SHUTDOWN_DELAY_MS: '6000',
  });
  const rpc = (body: object, session?: string) =>
    fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
      },
      body: JSON.stringify(body),
    });
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'drain', version: '1' } },
  };
  try {
    const opened = await rpc(initialize);
    const session = opened.headers.get('mcp-session-id') ?? '';
    await opened.text();
    assert.equal((await readyz(server)).status, 200);

    server.child.kill('SIGTERM');
    await until(async () => (await readyz(server)).status === 503, 10_000, '/readyz 503 after SIGTERM');
    const r = await readyz(server);
    assert.equal(r.body.status, 'not_ready');
    assert.match(r.body.checks.shutdown?.detail ?? '', /^draining: still serving/);
    // In flight and new alike: a call on the open session and a new session are still answered.
    const call = await rpc(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'still here' } },
      },
      session,
    );
    assert.equal(call.status, 200);
    assert.match(await call.text(), /still here/);
    const fresh = await rpc(initialize);
    assert.equal(fresh.status, 200);
    await fresh.text();

    await until(() => server.child.exitCode !== null, EXIT_WAIT_MS, 'the exit after the delay and the drain');
    assert.equal(await server.exited, 0);
    await assert.rejects(fetch(`${new URL(server.url).origin}/readyz`), 'the listener is closed');
  } finally {
    await server.stop();
  }
});
