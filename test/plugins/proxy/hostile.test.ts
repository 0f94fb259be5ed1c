/**
 * The proxy in the real CLI over streamable HTTP, in front of an upstream that sends what a
 * hostile server may (fixtures/hostile-server.ts), driven by the official v2 client:
 *
 * - an argument for the upstream's `pattern: "^(a+)+$"` (exponential on a backtracking engine)
 *   is refused as invalid, and another caller's call on the same server is answered meanwhile
 *   (the whole test is bounded by a timeout the backtracking case would exceed by hours);
 * - tool schemas nested 800 levels, over 4 MiB or invalid leave that tool out, with one warning
 *   naming it, and the server starts and serves the others;
 * - the protocol's reserved `_meta` keys in an upstream result (a forged related task, protocol
 *   version, server info) do not reach our client, on either wire; the upstream's own keys do.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type SpawnedHttpServer, spawnHttpServer } from '../../helpers/spawn-server.ts';
import { HOSTILE } from './helpers.ts';

const INFO = { name: 'proxy-hostile', version: '1.0.0' };

interface Result {
  content: { type: string; text?: string }[];
  isError?: boolean;
}

async function connect(url: string, wire: '2025' | '2026' = '2025'): Promise<Client> {
  const client = new Client(
    INFO,
    wire === '2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const textOf = (r: Result) => r.content.map((c) => c.text ?? '').join('\n');

describe('a hostile upstream behind the proxy', () => {
  let server: SpawnedHttpServer;
  before(async () => {
    server = await spawnHttpServer({
      MCP_PLUGINS: 'proxy',
      MCP_PROXY_COMMAND: process.execPath,
      MCP_PROXY_ARGS: JSON.stringify([HOSTILE]),
    });
  });
  after(async () => {
    await server?.stop();
  });

  // Bounded: on a backtracking engine the 40-character argument takes hours, the 30 about a minute per try.
  test('an exponential pattern cannot stall the server: the argument is refused, another caller is answered', {
    timeout: 120_000,
  }, async () => {
    const hostile = await connect(server.url);
    const other = await connect(server.url);
    try {
      const calls = [30, 40].map(
        (n) =>
          hostile.callTool({ name: 'match', arguments: { value: `${'a'.repeat(n)}!` } }) as Promise<Result>,
      );
      const keyed = hostile.callTool({
        name: 'keyed',
        arguments: { [`${'a'.repeat(40)}!`]: 'x' },
      }) as Promise<Result>;
      const answered = (await other.callTool({
        name: 'echo',
        arguments: { text: 'still answered' },
      })) as Result;
      assert.equal(textOf(answered), 'still answered');
      for (const r of await Promise.all(calls)) {
        assert.equal(r.isError, true);
        assert.match(textOf(r), /value: must match pattern "\^\(a\+\)\+\$"/);
      }
      const k = await keyed;
      assert.equal(k.isError, true);
      assert.match(textOf(k), /must NOT have additional properties/);
      const ok = (await hostile.callTool({ name: 'match', arguments: { value: 'aaaa' } })) as Result;
      assert.equal(textOf(ok), 'called match');
    } finally {
      await hostile.close();
      await other.close();
    }
  });

  for (const wire of ['2025', '2026'] as const) {
    test(`reserved _meta keys of the upstream's result are dropped, its own kept (${wire} wire)`, async () => {
      const client = await connect(server.url, wire);
      try {
        const r = (await client.callTool({ name: 'reserved_meta', arguments: {} })) as Result & {
          _meta?: Record<string, unknown>;
        };
        assert.equal(r._meta?.['example.com/kept'], 'an upstream key of its own');
        assert.equal(r._meta?.['io.modelcontextprotocol/related-task'], undefined);
        assert.notEqual(r._meta?.['io.modelcontextprotocol/protocolVersion'], '1999-01-01');
        assert.doesNotMatch(JSON.stringify(r._meta), /forged|1999-01-01/);
      } finally {
        await client.close();
      }
    });
  }

  test('schemas too deep, too large or invalid leave their tool out, with one warning each', async () => {
    const client = await connect(server.url);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, ['big', 'echo', 'keyed', 'match', 'reserved_meta', 'sleep']);
    } finally {
      await client.close();
    }
    const warnings = server
      .stderr()
      .split('\n')
      .filter((l) => l.includes('not served'))
      .map((l) => JSON.parse(l) as { level: number; tool?: string; reason: string });
    assert.deepEqual(warnings.map((w) => w.tool).sort(), ['bad_pattern', 'deep', 'huge', 'invalid']);
    assert.ok(warnings.every((w) => w.level === 40));
    const reason = (tool: string) => warnings.find((w) => w.tool === tool)?.reason ?? '';
    assert.match(reason('deep'), /nested deeper than 256 levels/);
    assert.match(reason('huge'), /bytes of JSON, more than 1048576/);
    assert.match(reason('invalid'), /schema is invalid/);
    assert.match(reason('bad_pattern'), /Invalid regular expression/);
  });
});
