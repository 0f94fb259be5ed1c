/**
 * Several upstreams in one HTTP server, as a user runs it (`mcp-toolkit run`, real processes):
 * the official memory and everything servers and a local plugin side by side, and both
 * official clients (v1 `@modelcontextprotocol/sdk`, v2 `@modelcontextprotocol/client`) list
 * and call a tool of each; a transform naming no tool and a prefixed name a local tool has are
 * warnings, not failures. Then readiness per upstream: one upstream crashing leaves the other
 * answering and /readyz 503 naming it; one that does not start leaves the others serving
 * (503 when required, 200 when `optional`); doctor prints one line per upstream; a bad list
 * stops start-up with exit code 2 naming the entry and field.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CLI,
  childEnv,
  REPO_ROOT,
  type SpawnedHttpServer,
  spawnHttpCli,
  spawnHttpServer,
} from '../../helpers/spawn-server.ts';
import { until } from '../../helpers/until.ts';
import { everythingEntry, memoryEntry, relayEntry, scratch, upstreamPids } from './helpers.ts';

type Result = { content: { type: string; text?: string }[]; isError?: boolean };
const textOf = (r: unknown) => (r as Result).content.map((c) => c.text ?? '').join('\n');

/** What both official clients can do here: list tools and call one. */
interface AnyClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

async function connect(version: 'v1' | 'v2', url: string): Promise<AnyClient> {
  if (version === 'v1') {
    const c = new ClientV1({ name: 'several-v1', version: '1.0.0' });
    await c.connect(new HttpV1(new URL(url)));
    return c as unknown as AnyClient;
  }
  const c = new ClientV2({ name: 'several-v2', version: '1.0.0' });
  await c.connect(new HttpV2(new URL(url)));
  return c as unknown as AnyClient;
}

/** Runs the real CLI to its end. */
function runCli(
  args: string[],
  env: Record<string, string>,
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: REPO_ROOT,
    env: childEnv(env),
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function readyz(
  url: string,
): Promise<{ status: number; body: { checks: Record<string, { ok: boolean; detail?: string }> } }> {
  const res = await fetch(new URL('/readyz', url));
  return { status: res.status, body: (await res.json()) as never };
}

describe('memory, everything and a local plugin behind one endpoint', () => {
  const tmp = scratch();
  let server: SpawnedHttpServer;
  before(async () => {
    const upstreams = [
      memoryEntry(tmp.dir),
      everythingEntry({ tools: { 'no-such-tool': { rename: 'ghost' } } }),
    ];
    server = await spawnHttpServer({
      MCP_PLUGINS: 'proxy,./test/plugins/proxy/fixtures/local-plugin.ts',
      MCP_PROXY_UPSTREAMS: JSON.stringify(upstreams),
    });
  });
  after(async () => {
    await server?.stop();
    tmp.remove();
  });

  for (const version of ['v1', 'v2'] as const) {
    test(`the official ${version} client lists and calls a tool of each`, async () => {
      const client = await connect(version, server.url);
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        for (const n of ['hello', 'mem_create_entities', 'mem_search_nodes', 'ev_echo', 'ev_get-sum'])
          assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
        assert.match(
          textOf(await client.callTool({ name: 'hello', arguments: { who: version } })),
          /Hello, v[12]!/,
        );
        const made = await client.callTool({
          name: 'mem_create_entities',
          arguments: {
            entities: [{ name: `Ada-${version}`, entityType: 'person', observations: ['counted'] }],
          },
        });
        assert.notEqual((made as Result).isError, true, JSON.stringify(made));
        const found = await client.callTool({
          name: 'mem_search_nodes',
          arguments: { query: `Ada-${version}` },
        });
        assert.match(textOf(found), new RegExp(`Ada-${version}`));
        assert.match(
          textOf(await client.callTool({ name: 'ev_echo', arguments: { message: version } })),
          /v[12]/,
        );
      } finally {
        await client.close();
      }
    });
  }

  test('a transform of no tool and a name a local tool has are warnings; /readyz names both upstreams', async () => {
    assert.match(server.stderr(), /upstream everything has no tool no-such-tool/);
    assert.match(server.stderr(), /upstream tool mem_read_graph not served/);
    const { status, body } = await readyz(server.url);
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body.checks['plugin:proxy'], { ok: true });
  });
});

describe('one upstream crashes, the other keeps answering', () => {
  let server: SpawnedHttpServer;
  let client: AnyClient;
  before(async () => {
    server = await spawnHttpServer({
      MCP_PLUGINS: 'proxy',
      // No restart within the test: the crashed upstream stays down.
      MCP_PROXY_RESTART_DELAY_MS: '600000',
      MCP_PROXY_WAIT_MS: '0',
      MCP_PROXY_UPSTREAMS: JSON.stringify([
        relayEntry('one', 'one'),
        relayEntry('two', 'two'),
        {
          name: 'ghost',
          command: process.execPath,
          args: ['/nonexistent/ghost.js'],
          prefix: 'g_',
          optional: true,
        },
      ]),
    });
    client = await connect('v2', server.url);
  });
  after(async () => {
    await client?.close();
    await server?.stop();
  });

  test('an optional upstream that did not start: the others serve, /readyz 200', async () => {
    assert.equal(textOf(await client.callTool({ name: 'one_add', arguments: { a: 1, b: 2 } })), '3');
    const { status, body } = await readyz(server.url);
    assert.equal(status, 200, JSON.stringify(body));
  });

  test('one crashes: its calls are tool errors, the other answers, /readyz 503 names it', async () => {
    const before = upstreamPids(server, 'relay-server.ts');
    assert.equal(before.length, 2, 'one process per upstream');
    await client.callTool({ name: 'one_crash', arguments: {} });
    await until(
      async () => {
        const r = (await client.callTool({ name: 'one_add', arguments: { a: 1, b: 1 } })) as Result;
        return r.isError === true;
      },
      { timeoutMs: 20_000, message: 'the crashed upstream’s tool kept answering' },
    );
    assert.equal(textOf(await client.callTool({ name: 'two_add', arguments: { a: 2, b: 3 } })), '5');
    const down = await until(
      async () => {
        const r = await readyz(server.url);
        return r.status === 503 ? r : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, message: '/readyz never turned 503' },
    );
    const detail = String(down.body.checks['plugin:proxy']?.detail);
    assert.match(detail, /proxy upstream one answers: stdio upstream down/);
    assert.doesNotMatch(detail, /upstream two|ghost/);
    // The other upstream's process is the one it had: not restarted, not touched.
    const after = upstreamPids(server, 'relay-server.ts');
    assert.equal(after.length, 1);
    assert.ok(before.includes(after[0] as number));
  });
});

describe('a required upstream that does not start', () => {
  test('the others serve, /readyz is 503 naming it', async (t) => {
    const server = await spawnHttpServer({
      MCP_PLUGINS: 'proxy',
      MCP_PROXY_UPSTREAMS: JSON.stringify([
        relayEntry('one', 'one'),
        { name: 'broken', command: process.execPath, args: ['/nonexistent/broken.js'], prefix: 'b_' },
      ]),
    });
    t.after(() => server.stop());
    const client = await connect('v1', server.url);
    t.after(() => client.close());
    assert.equal(textOf(await client.callTool({ name: 'one_add', arguments: { a: 4, b: 5 } })), '9');
    const { status, body } = await readyz(server.url);
    assert.equal(status, 503, JSON.stringify(body));
    assert.match(String(body.checks['plugin:proxy']?.detail), /proxy upstream broken answers/);
    assert.match(server.stderr(), /upstream broken \(.*\) did not start/);
  });
});

describe('doctor and bad lists', () => {
  test('doctor prints one line per upstream', async () => {
    const run = runCli(['doctor'], {
      MCP_PLUGINS: 'proxy',
      MCP_PROXY_UPSTREAMS: JSON.stringify([
        relayEntry('one', 'one'),
        {
          name: 'ghost',
          command: process.execPath,
          args: ['/nonexistent/ghost.js'],
          prefix: 'g_',
          optional: true,
        },
      ]),
      MCP_PROXY_UPSTREAM_SECRETS: JSON.stringify({ ghost: { env: { TOKEN: 'do-not-print-me' } } }),
    });
    const out = run.stdout + run.stderr;
    assert.match(
      out,
      /plugin proxy: proxy upstream one answers \(relay-server 1\.0\.0, protocol [^,]+: 4 tool\(s\)\)/,
    );
    assert.match(out, /plugin proxy: proxy upstream ghost answers \(optional; stdio upstream down/);
    assert.doesNotMatch(out, /do-not-print-me/);
  });

  for (const [what, upstreams, message] of [
    [
      'two upstreams with one prefix',
      [relayEntry('a', 'a', { prefix: 'x_' }), relayEntry('b', 'b', { prefix: 'x_' })],
      /upstreams\[1\] \("b"\)\.prefix: upstreams\[0\] has the same prefix "x_"/,
    ],
    [
      'a bad field',
      [relayEntry('a', 'a'), { ...relayEntry('b', 'b'), isolation: 'sometimes' }],
      /upstreams\[1\] \("b"\)\.isolation/,
    ],
  ] as const) {
    test(`${what}: exit code 2, naming the entry and field`, async () => {
      const run = runCli(['run', '--transport', 'http', '--port', '0'], {
        MCP_LOG_FORMAT: 'pretty',
        MCP_PLUGINS: 'proxy',
        MCP_PROXY_UPSTREAMS: JSON.stringify(upstreams),
      });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
    });
  }

  test('mcp-toolkit proxy --upstreams <file> serves the list', async (t) => {
    const tmp = scratch();
    t.after(() => tmp.remove());
    const file = `${tmp.dir}/upstreams.json`;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, JSON.stringify([relayEntry('one', 'one'), relayEntry('two', 'two')]));
    const proxy = await spawnHttpCli(['proxy', '--port', '0', '--upstreams', file]);
    t.after(() => proxy.stop());
    const client = await connect('v2', proxy.url);
    t.after(() => client.close());
    assert.equal(textOf(await client.callTool({ name: 'two_add', arguments: { a: 1, b: 1 } })), '2');
  });
});
