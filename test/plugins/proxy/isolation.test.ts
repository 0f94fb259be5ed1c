/**
 * MCP_PROXY_ISOLATION with the memory server as the upstream, its file named with
 * `{session}`: shared (the default), two sessions see one graph; per-session, each sees its
 * own, its upstream process is stopped when the session ends, a session over
 * MCP_PROXY_MAX_SESSIONS gets a tool error (and one once a session has ended), and 2026-wire
 * requests (no session) use the shared upstream; doctor counts them. Bad values stop start-up with the setting named.
 * Over HTTP, in the real CLI: the official client's session has its own process, which stops
 * when the client ends the session.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TestClient } from '@mcp-toolkit/server/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { checkUpstreams } from '../../../plugins/proxy/doctor.ts';
import proxy from '../../../plugins/proxy/index.ts';
import { startServer } from '../../helpers/client.ts';
import { type SpawnedHttpServer, spawnHttpServer } from '../../helpers/spawn-server.ts';
import { until } from '../../helpers/until.ts';
import { memoryUpstream, scratch, upstreamPids } from './helpers.ts';

type Graph = { entities: { name: string }[] };

function env(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...memoryUpstream(dir),
    MCP_PROXY_ENV: JSON.stringify({ MEMORY_FILE_PATH: path.join(dir, 'memory-{session}.jsonl') }),
    ...extra,
  };
}

async function names(client: TestClient): Promise<string[]> {
  const r = await client.callTool('read_graph', {});
  assert.notEqual(r.isError, true, JSON.stringify(r));
  return (r.structuredContent as Graph).entities.map((e) => e.name).sort();
}

async function make(client: TestClient, name: string): Promise<void> {
  const r = await client.callTool('create_entities', {
    entities: [{ name, entityType: 'test', observations: ['x'] }],
  });
  assert.notEqual(r.isError, true, JSON.stringify(r));
}

/** The memory files the upstreams have written so far. */
const files = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('memory-'));

describe('shared (the default)', () => {
  const tmp = scratch();
  after(() => tmp.remove());

  test('two sessions see one graph', async () => {
    const running = await startServer({ plugins: [proxy], env: env(tmp.dir) });
    const a = await TestClient.start({ server: running });
    const b = await TestClient.start({ server: running });
    try {
      await make(a, 'From A');
      assert.deepEqual(await names(b), ['From A']);
      assert.deepEqual(files(tmp.dir), ['memory-shared.jsonl']);
    } finally {
      await b.close();
      await a.close();
      await running.close();
    }
  });
});

describe('per-session', () => {
  const tmp = scratch();
  after(() => tmp.remove());

  test('two sessions see separate graphs; a session that ends stops its upstream; the cap', async () => {
    const running = await startServer({
      plugins: [proxy],
      env: env(tmp.dir, { MCP_PROXY_ISOLATION: 'per-session', MCP_PROXY_MAX_SESSIONS: '2' }),
    });
    const a = await TestClient.start({ server: running });
    const b = await TestClient.start({ server: running });
    let c: TestClient | undefined;
    try {
      await make(a, 'From A');
      await make(b, 'From B');
      assert.deepEqual(await names(a), ['From A']);
      assert.deepEqual(await names(b), ['From B']);
      // Neither wrote the shared upstream's file.
      assert.equal(files(tmp.dir).length, 2, files(tmp.dir).join(', '));
      assert.equal(existsSync(path.join(tmp.dir, 'memory-shared.jsonl')), false);
      const [check] = await checkUpstreams(running.server.plugins[0]?.settings as never);
      assert.match(String(check?.detail), /2 of at most 2 per-session upstream\(s\) running/);

      c = await TestClient.start({ server: running });
      const over = await c.callTool('read_graph', {});
      assert.equal(over.isError, true, JSON.stringify(over));
      assert.match(JSON.stringify(over.content), /MCP_PROXY_MAX_SESSIONS=2/);

      // The 2026 wire has no session: the shared upstream answers it.
      const modern = await TestClient.start({ server: running, wire: '2026' });
      try {
        assert.deepEqual(await names(modern), []);
      } finally {
        await modern.close();
      }

      await b.close();
      // b's upstream is stopped, so c gets one.
      const graph = await until(
        async () => {
          const r = await (c as TestClient).callTool('read_graph', {});
          return r.isError === true ? undefined : (r.structuredContent as Graph);
        },
        { timeoutMs: 10_000, intervalMs: 50, message: "c to get an upstream once b's ended" },
      );
      assert.deepEqual(graph?.entities, []);
    } finally {
      await c?.close();
      await b.close().catch(() => {});
      await a.close();
      await running.close();
    }
  });

  test('a bad MCP_PROXY_ISOLATION stops start-up naming it', async () => {
    await assert.rejects(
      TestClient.start({ plugins: [proxy], env: env(tmp.dir, { MCP_PROXY_ISOLATION: 'per-user' }) }),
      /MCP_PROXY_ISOLATION/,
    );
  });
});

describe('per-session behind our HTTP transport', () => {
  const tmp = scratch();
  let server: SpawnedHttpServer;
  before(async () => {
    server = await spawnHttpServer({
      MCP_PLUGINS: 'proxy',
      ...env(tmp.dir, { MCP_PROXY_ISOLATION: 'per-session' }),
    });
  });
  after(async () => {
    await server?.stop();
    tmp.remove();
  });

  test("the official v2 client's session gets its own process, stopped when it ends the session (DELETE)", async () => {
    const processes = () => upstreamPids(server, 'server-memory').length;
    assert.equal(processes(), 1, 'the shared upstream only');
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    const client = new Client({ name: 'isolation', version: '1.0.0' });
    await client.connect(transport);
    try {
      const made = (await client.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'Over HTTP', entityType: 'test', observations: ['x'] }] },
      })) as { isError?: boolean };
      assert.notEqual(made.isError, true, JSON.stringify(made));
      assert.equal(processes(), 2);
      await transport.terminateSession();
      await until(() => processes() === 1, { timeoutMs: 10_000, message: "the session's upstream to stop" });
    } finally {
      await client.close();
    }
  });
});
