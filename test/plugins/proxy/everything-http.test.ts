/**
 * server-everything's own streamable-HTTP mode as the proxy's upstream, reached by URL. That
 * mode listens on every interface and takes no host setting, so the upstream and our server
 * run in a network namespace of their own (`unshare --net`: only a loopback there) and a PID
 * namespace (`--pid --fork`: when our server, its first process, exits, the upstream goes with
 * it). The official v1 client on the 2025 wire and the v2 client on both wires reach our
 * server over stdio, which crosses the namespace, list the upstream's tools and call one.
 * Skipped, saying why, where the machine cannot make namespaces.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, childEnv, REPO_ROOT } from '../../helpers/spawn-server.ts';
import { until } from '../../helpers/until.ts';

const EVERYTHING = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const PORT = 3001;
const INFO = { name: 'proxy-everything-http', version: '1.0.0' };

function namespacesMissing(): string | undefined {
  const probe = spawnSync(
    'unshare',
    ['--net', '--pid', '--fork', '--kill-child', 'ip', 'link', 'set', 'lo', 'up'],
    {
      encoding: 'utf8',
      timeout: 10_000,
    },
  );
  if (probe.error) return `unshare (util-linux) is not available here: ${probe.error.message}`;
  if (probe.status !== 0)
    return `this machine cannot make a network namespace (unshare --net as root, and ip from iproute2): ${probe.stderr.trim()}`;
  return undefined;
}

/** Our server over stdio, its upstream server-everything in HTTP mode beside it, in their own namespaces. */
function stdioParams() {
  const script = [
    'ip link set lo up || exit 97',
    // Its stdout is not ours: our server's stdout carries JSON-RPC only.
    `PORT=${PORT} "$NODE" "$EVERYTHING" streamableHttp 1>&2 &`,
    'exec "$NODE" "$CLI" run --transport stdio',
  ].join('\n');
  return {
    command: 'unshare',
    args: ['--net', '--pid', '--fork', '--kill-child', 'sh', '-c', script],
    env: childEnv({
      NODE: process.execPath,
      EVERYTHING,
      CLI,
      MCP_PLUGINS: 'proxy',
      MCP_PROXY_URL: `http://127.0.0.1:${PORT}/mcp`,
      // The upstream starts beside us: retry it soon.
      MCP_PROXY_RESTART_DELAY_MS: '200',
    }),
    cwd: REPO_ROOT,
    stderr: 'pipe' as const,
  };
}

interface Lister {
  listTools(): Promise<{ tools: { name: string }[] }>;
}

/** Until the upstream has come up and its tools are ours. */
async function upstreamTools(client: Lister): Promise<string[]> {
  const names = await until(
    async () => {
      const { tools } = await client.listTools();
      const list = tools.map((t) => t.name);
      return list.includes('get-sum') ? list : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200, message: "server-everything's tools through the proxy" },
  );
  return names ?? [];
}

const missing = namespacesMissing();

describe("server-everything's streamable-HTTP mode behind the proxy", { skip: missing }, () => {
  test('the official v1 client (2025 wire) lists its tools and calls get-sum', async () => {
    const client = new ClientV1(INFO);
    await client.connect(new StdioV1(stdioParams()));
    try {
      const names = await upstreamTools(client);
      assert.ok(names.includes('echo'), names.join(', '));
      const r = (await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } })) as {
        content: { text?: string }[];
        isError?: boolean;
      };
      assert.notEqual(r.isError, true, JSON.stringify(r));
      assert.match(r.content[0]?.text ?? '', /42/);
    } finally {
      await client.close();
    }
  });

  for (const wire of ['2025', '2026'] as const) {
    test(`the official v2 client on the ${wire} wire lists its tools and calls get-sum`, async () => {
      const client = new Client(INFO, {
        versionNegotiation: { mode: wire === '2026' ? { pin: '2026-07-28' } : 'legacy' },
      });
      await client.connect(new StdioV2(stdioParams()));
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), wire === '2026' ? '2026-07-28' : '2025-11-25');
        const names = await upstreamTools(client);
        assert.ok(names.includes('echo'), names.join(', '));
        const r = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } });
        assert.notEqual(r.isError, true, JSON.stringify(r));
        assert.match(JSON.stringify(r.content), /42/);
      } finally {
        await client.close();
      }
    });
  }
});
