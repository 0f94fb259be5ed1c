/**
 * `mcp-toolkit proxy --port 0 -- node <server-memory>` end to end: the real CLI serves the
 * official memory server over our HTTP transport, and the official v2 client creates an
 * entity and finds it again through it; `mcp-toolkit proxy <url>` in front of that proxy serves
 * its tools with a prefix. Then the proxy's check parity: `mcp-toolkit check` on the
 * proxy reports no failed MUST or SHOULD check that `check` does not also report on the
 * memory server itself (run over stdio).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { childEnv, type SpawnedHttpServer, spawnHttpCli } from '../helpers/spawn-server.ts';
import { scratch } from '../plugins/proxy/helpers.ts';
import { runCli } from '../testing/helpers/fixtures.ts';

const MEMORY = 'node_modules/@modelcontextprotocol/server-memory/dist/index.js';

interface Check {
  id: string;
  level: string;
  status: string;
  reason?: string;
}

/** Runs `mcp-toolkit check --json <target...>` and returns its report. */
async function checkJson(
  target: string[],
  env: Record<string, string>,
): Promise<{ connected: boolean; checks: Check[] }> {
  const run = await runCli(['check', '--json', ...target], { env: childEnv(env) });
  try {
    return JSON.parse(run.stdout) as { connected: boolean; checks: Check[] };
  } catch {
    throw new Error(
      `check ${target.join(' ')} exited ${run.code} without a JSON report; stderr:\n${run.stderr}`,
    );
  }
}

/** The ids of the failed MUST and SHOULD checks (a SHOULD that fails is a warning without --strict). */
function failed(report: { checks: Check[] }): Map<string, string> {
  return new Map(
    report.checks
      .filter(
        (c) => (c.level === 'MUST' || c.level === 'SHOULD') && (c.status === 'fail' || c.status === 'warn'),
      )
      .map((c) => [c.id, `${c.level} ${c.status}: ${c.reason ?? ''}`]),
  );
}

describe('mcp-toolkit proxy -- node server-memory', () => {
  const tmp = scratch();
  let proxy: SpawnedHttpServer;
  before(async () => {
    proxy = await spawnHttpCli(['proxy', '--port', '0', '--', process.execPath, MEMORY], {
      MCP_PROXY_ENV: JSON.stringify({ MEMORY_FILE_PATH: path.join(tmp.dir, 'proxied.jsonl') }),
    });
  });
  after(async () => {
    await proxy?.stop();
    tmp.remove();
  });

  test('the v2 client calls the memory server through the proxy', async () => {
    const client = new Client({ name: 'proxy-cli-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
    try {
      const { tools } = await client.listTools();
      assert.ok(
        tools.some((t) => t.name === 'create_entities'),
        tools.map((t) => t.name).join(', '),
      );
      const created = await client.callTool({
        name: 'create_entities',
        arguments: {
          entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
        },
      });
      assert.notEqual(created.isError, true, JSON.stringify(created));
      const found = (await client.callTool({ name: 'search_nodes', arguments: { query: 'Ada' } })) as {
        content: { type: string; text?: string }[];
        isError?: boolean;
      };
      assert.notEqual(found.isError, true, JSON.stringify(found));
      assert.match(found.content.map((c) => c.text ?? '').join('\n'), /wrote the first program/);
    } finally {
      await client.close();
    }
  });

  test('proxy <url>: a second proxy serves the first one over HTTP, with a prefix', async (t) => {
    const outer = await spawnHttpCli(['proxy', '--port', '0', '--prefix', 'mem_', proxy.url]);
    t.after(() => outer.stop());
    const client = new Client({ name: 'proxy-cli-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(outer.url)));
    try {
      const result = (await client.callTool({ name: 'mem_read_graph', arguments: {} })) as {
        content: { type: string; text?: string }[];
        isError?: boolean;
      };
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.match(result.content.map((c) => c.text ?? '').join('\n'), /Ada/);
    } finally {
      await client.close();
    }
  });

  test('check on the proxy fails no MUST or SHOULD that check on the upstream passes', async () => {
    const [upstream, proxied] = await Promise.all([
      checkJson(['--', process.execPath, MEMORY], {
        MEMORY_FILE_PATH: path.join(tmp.dir, 'upstream.jsonl'),
      }),
      checkJson([proxy.url], {}),
    ]);
    assert.ok(upstream.connected && proxied.connected, 'check reached both servers');
    const up = failed(upstream);
    const px = failed(proxied);
    const extra = [...px.keys()].filter((id) => !up.has(id));
    const show = (m: Map<string, string>) =>
      [...m].map(([id, why]) => `  ${id} (${why})`).join('\n') || '  (none)';
    assert.deepEqual(
      extra,
      [],
      `failed on the proxy only: ${extra.join(', ')}\nproxy:\n${show(px)}\nupstream:\n${show(up)}`,
    );
  });
});
