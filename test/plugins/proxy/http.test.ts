/**
 * The proxy plugin in the real CLI over streamable HTTP with API-key auth, against real
 * upstreams over stdio: the official v2 client (both wires) lists and calls the memory
 * server's tools (401 without a key); /readyz carries the upstream check. Against the
 * everything server: progress of the upstream call reaches our client, and killing the
 * upstream process mid-call gives that call a tool error within a second, /readyz turns 503
 * while it is down, and a later call succeeds once it has been restarted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type SpawnedHttpServer, spawnHttpServer } from '../../helpers/spawn-server.ts';
import { until } from '../../helpers/until.ts';
import { everythingUpstream, memoryUpstream, scratch, upstreamPid } from './helpers.ts';

const KEY = 'proxy-test-key-0123456789abcdef';
const AUTH = { MCP_PLUGINS: 'proxy', MCP_AUTH: 'api_key', MCP_API_KEYS: `tester:${KEY}` };
const INFO = { name: 'proxy-e2e', version: '1.0.0' };

interface Result {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

async function connect(url: string, wire: '2025' | '2026' = '2025'): Promise<Client> {
  const client = new Client(
    INFO,
    wire === '2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'x-api-key': KEY } } }),
  );
  return client;
}

describe('memory server behind our HTTP transport', () => {
  const tmp = scratch();
  let server: SpawnedHttpServer;
  before(async () => {
    server = await spawnHttpServer({ ...AUTH, ...memoryUpstream(tmp.dir) });
  });
  after(async () => {
    await server?.stop();
    tmp.remove();
  });

  test('401 without a key', async () => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: INFO },
      }),
    });
    assert.equal(res.status, 401);
  });

  for (const wire of ['2025', '2026'] as const) {
    test(`the official v2 client on the ${wire} wire lists and calls its tools`, async () => {
      const client = await connect(server.url, wire);
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.some((t) => t.name === 'create_entities'));
        const made = (await client.callTool({
          name: 'create_entities',
          arguments: { entities: [{ name: `Via ${wire}`, entityType: 'test', observations: ['x'] }] },
        })) as Result;
        assert.notEqual(made.isError, true, JSON.stringify(made));
        const found = (await client.callTool({
          name: 'search_nodes',
          arguments: { query: `Via ${wire}` },
        })) as Result;
        const entities = (found.structuredContent as { entities: { name: string }[] }).entities;
        assert.deepEqual(
          entities.map((e) => e.name),
          [`Via ${wire}`],
        );
      } finally {
        await client.close();
      }
    });
  }

  test('/readyz carries the upstream check', async () => {
    const res = await fetch(new URL('/readyz', server.url));
    const body = (await res.json()) as { checks: Record<string, { ok: boolean }> };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.deepEqual(body.checks['plugin:proxy'], { ok: true });
  });
});

describe('everything server: progress, a crash and the restart', () => {
  let server: SpawnedHttpServer;
  before(async () => {
    server = await spawnHttpServer({ ...AUTH, ...everythingUpstream(), MCP_PROXY_RESTART_DELAY_MS: '1500' });
  });
  after(() => server?.stop());

  test('progress of the upstream call is forwarded', async () => {
    const client = await connect(server.url);
    try {
      const seen: number[] = [];
      const result = (await client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 0.4, steps: 4 } },
        { onprogress: (p) => seen.push(p.progress) },
      )) as Result;
      assert.match(String(result.content[0]?.text), /completed/);
      // The upstream's last progress (4 of 4) is not always reported even by the official
      // client talking to the upstream directly (seen in our runs); the others reach ours in order.
      assert.deepEqual(seen.slice(0, 3), [1, 2, 3]);
    } finally {
      await client.close();
    }
  });

  test('killing the upstream mid-call: an error within a second, /readyz 503, then a call after the restart works', async () => {
    const client = await connect(server.url);
    try {
      let progressed: () => void = () => {};
      const started = new Promise<void>((resolve) => {
        progressed = resolve;
      });
      const call = client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 20, steps: 40 } },
        { onprogress: () => progressed() },
      ) as Promise<Result>;
      await started;
      const before = upstreamPid(server, 'server-everything');
      process.kill(before, 'SIGKILL');
      const killedAt = Date.now();
      const result = await call;
      const took = Date.now() - killedAt;
      assert.equal(result.isError, true);
      assert.match(String(result.content[0]?.text), /went away during the call/);
      assert.ok(took < 1000, `the call answered ${took} ms after the kill`);

      const ready = await fetch(new URL('/readyz', server.url));
      const body = (await ready.json()) as { checks: Record<string, { ok: boolean; detail?: string }> };
      assert.equal(ready.status, 503, JSON.stringify(body));
      assert.match(String(body.checks['plugin:proxy']?.detail), /stdio upstream down/);

      // The next call succeeds once the upstream is restarted (with back-off).
      const echoed = await until(
        async () => {
          const r = (await client.callTool({ name: 'echo', arguments: { message: 'back' } })) as Result;
          return r.isError === true ? undefined : r;
        },
        { timeoutMs: 15_000, intervalMs: 50, message: 'a call to succeed after the restart' },
      );
      assert.match(String(echoed?.content[0]?.text), /back/);
      assert.notEqual(upstreamPid(server, 'server-everything'), before);
    } finally {
      await client.close();
    }
  });
});
