/**
 * What the upstream asks of the client during a tool call, through the proxy in the real CLI
 * over streamable HTTP, with the everything server as the upstream (stdio): its elicitation
 * and sampling tools reach our client, the official v1 client (2025 wire) and v2 client (2025
 * wire and pinned to 2026-07-28), each answering, and the answer goes back upstream; a caller
 * that did not declare the capability gets the upstream's own failure, and the server stays up;
 * the upstream killed while our client answers fails that call at once, and the next one works
 * once it is restarted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type SpawnedHttpServer, spawnHttpServer } from '../../helpers/spawn-server.ts';
import { until } from '../../helpers/until.ts';
import { everythingUpstream, upstreamPid } from './helpers.ts';

const KEY = 'proxy-forward-key-0123456789abcdef';
const AUTH = { MCP_PLUGINS: 'proxy', MCP_AUTH: 'api_key', MCP_API_KEYS: `tester:${KEY}` };
const INFO = { name: 'proxy-forward', version: '1.0.0' };
const HEADERS = { requestInit: { headers: { 'x-api-key': KEY } } };

interface Result {
  content: { type: string; text?: string }[];
  isError?: boolean;
}

const texts = (r: Result) => r.content.map((c) => c.text ?? '').join('\n');

let server: SpawnedHttpServer;
before(async () => {
  server = await spawnHttpServer({ ...AUTH, ...everythingUpstream() });
});
after(() => server?.stop());

/** The v2 client with elicitation and sampling answered, on the given wire. */
async function v2(wire: '2025' | '2026', seen: string[]): Promise<Client> {
  const client = new Client(INFO, {
    capabilities: { elicitation: { form: {} }, sampling: {} },
    ...(wire === '2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
  });
  client.setRequestHandler('elicitation/create', async (request) => {
    seen.push(`elicit: ${request.params.message}`);
    return { action: 'accept', content: { name: `Ada via ${wire}` } };
  });
  client.setRequestHandler('sampling/createMessage', async (request) => {
    seen.push(`sample: ${JSON.stringify(request.params.messages[0])}`);
    return { role: 'assistant', content: { type: 'text', text: `sampled on ${wire}` }, model: 'test-model' };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), HEADERS));
  return client;
}

describe('elicitation and sampling from the upstream reach our client', () => {
  for (const wire of ['2025', '2026'] as const) {
    test(`the official v2 client on the ${wire} wire answers them`, async () => {
      const seen: string[] = [];
      const client = await v2(wire, seen);
      try {
        const { tools } = await client.listTools();
        const names = tools.map((t) => t.name);
        assert.ok(names.includes('trigger-elicitation-request'), names.join(', '));
        const elicited = (await client.callTool({
          name: 'trigger-elicitation-request',
          arguments: {},
        })) as Result;
        assert.notEqual(elicited.isError, true, JSON.stringify(elicited));
        assert.match(texts(elicited), new RegExp(`Name: Ada via ${wire}`));
        const sampled = (await client.callTool({
          name: 'trigger-sampling-request',
          arguments: { prompt: 'say hi', maxTokens: 10 },
        })) as Result;
        assert.notEqual(sampled.isError, true, JSON.stringify(sampled));
        assert.match(texts(sampled), new RegExp(`sampled on ${wire}`));
        assert.equal(seen[0], 'elicit: Please provide inputs for the following fields:');
        assert.match(String(seen[1]), /say hi/);
      } finally {
        await client.close();
      }
    });
  }

  test('the official v1 client (2025 wire) answers an elicitation', async () => {
    const client = new ClientV1(INFO, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { name: 'Ada via v1' },
    }));
    await client.connect(new HttpV1(new URL(server.url), HEADERS));
    try {
      const r = (await client.callTool({ name: 'trigger-elicitation-request', arguments: {} })) as Result;
      assert.notEqual(r.isError, true, JSON.stringify(r));
      assert.match(texts(r), /Name: Ada via v1/);
    } finally {
      await client.close();
    }
  });

  test('a caller without the sampling capability gets the upstream failure, and the server stays up', async () => {
    const client = new ClientV1(INFO, { capabilities: { elicitation: {} } });
    await client.connect(new HttpV1(new URL(server.url), HEADERS));
    try {
      const r = (await client.callTool({
        name: 'trigger-sampling-request',
        arguments: { prompt: 'say hi', maxTokens: 10 },
      })) as Result;
      assert.equal(r.isError, true, JSON.stringify(r));
      const echoed = (await client.callTool({ name: 'echo', arguments: { message: 'still up' } })) as Result;
      assert.match(texts(echoed), /still up/);
    } finally {
      await client.close();
    }
  });

  test('the upstream killed while our client answers: the call is an error within a second, and the next one works after the restart', async () => {
    const client = new ClientV1(INFO, { capabilities: { elicitation: {} } });
    let killedAt = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      if (killedAt === 0) {
        process.kill(upstreamPid(server, 'server-everything'), 'SIGKILL');
        killedAt = Date.now();
      }
      return { action: 'accept', content: { name: 'after the kill' } };
    });
    await client.connect(new HttpV1(new URL(server.url), HEADERS));
    try {
      const r = (await client.callTool({ name: 'trigger-elicitation-request', arguments: {} })) as Result;
      const took = Date.now() - killedAt;
      assert.equal(r.isError, true, JSON.stringify(r));
      assert.match(texts(r), /went away during the call/);
      assert.ok(took < 1000, `the call answered ${took} ms after the kill`);
      const again = await until(
        async () => {
          const next = (await client.callTool({
            name: 'trigger-elicitation-request',
            arguments: {},
          })) as Result;
          return next.isError === true ? undefined : next;
        },
        { timeoutMs: 15_000, intervalMs: 50, message: 'a call to succeed after the restart' },
      );
      assert.match(texts(again as Result), /Name: after the kill/);
    } finally {
      await client.close();
    }
  });
});
