/**
 * One caller's big result is that caller's failure: in the real CLI over HTTP, a stdio
 * upstream (fixtures/hostile-server.ts) answers one call with 30 MiB of text, over
 * MCP_PROXY_MAX_MESSAGE_BYTES (16 MiB by default). That call gets a tool error saying so;
 * another caller's call in flight on the same shared upstream is answered, the upstream process
 * is the same one (not restarted), and later calls work. A 12 MiB result, over the official
 * client's own 10 MiB buffer, comes through whole.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type SpawnedHttpServer, spawnHttpServer } from '../../helpers/spawn-server.ts';
import { HOSTILE, upstreamPid } from './helpers.ts';

interface Result {
  content: { type: string; text?: string }[];
  isError?: boolean;
}

const textOf = (r: Result) => r.content.map((c) => c.text ?? '').join('\n');

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'big-result', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('a result too large for the upstream connection', () => {
  let server: SpawnedHttpServer;
  before(async () => {
    server = await spawnHttpServer({
      MCP_PLUGINS: 'proxy',
      MCP_PROXY_COMMAND: process.execPath,
      MCP_PROXY_ARGS: JSON.stringify([HOSTILE]),
      MCP_PROXY_ENV: JSON.stringify({ HOSTILE_TOOLS: 'echo,sleep,big' }),
    });
  });
  after(async () => {
    await server?.stop();
  });

  test('fails only its own call; the shared upstream and the other calls go on', {
    timeout: 180_000,
  }, async () => {
    const pid = upstreamPid(server, HOSTILE);
    const other = await connect(server.url);
    const greedy = await connect(server.url);
    try {
      const slow = other.callTool({ name: 'sleep', arguments: { ms: 3000 } }) as Promise<Result>;
      const big = (await greedy.callTool(
        { name: 'big', arguments: { mb: 30 } },
        { timeout: 120_000 },
      )) as Result;
      assert.equal(big.isError, true);
      assert.match(
        textOf(big),
        /answer was \d+ bytes or more, over the 16777216 the proxy reads from it \(MCP_PROXY_MAX_MESSAGE_BYTES\)/,
      );
      assert.equal(textOf(await slow), 'slept');
      assert.equal(upstreamPid(server, HOSTILE), pid, 'the upstream process was not restarted');
      assert.equal(
        textOf((await greedy.callTool({ name: 'echo', arguments: { text: 'after' } })) as Result),
        'after',
      );
      assert.match(server.stderr(), /upstream message not read/);
      assert.doesNotMatch(server.stderr(), /upstream went away/);
    } finally {
      await other.close();
      await greedy.close();
    }
  });

  test('a result over the official client’s 10 MiB buffer and under the limit comes through', {
    timeout: 180_000,
  }, async () => {
    const client = await connect(server.url);
    try {
      const r = (await client.callTool(
        { name: 'big', arguments: { mb: 12 } },
        { timeout: 120_000 },
      )) as Result;
      assert.notEqual(r.isError, true);
      assert.equal(textOf(r).length, 12 * 1024 * 1024);
    } finally {
      await client.close();
    }
  });
});
