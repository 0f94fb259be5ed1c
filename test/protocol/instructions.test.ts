/**
 * Instructions: MCP_SERVER_INSTRUCTIONS first, then each plugin's `instructions` in load order,
 * sent in the 2025 initialize result and the 2026 server/discover result, in process and over
 * HTTP to the official client on both wires.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { pino } from 'pino';
import { z } from 'zod';
import { buildMcpServer } from '../../src/assembly/server.ts';
import { httpOptions } from '../../src/assembly/transport-options.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { definePlugin, defineTool, InternalCode, ToolkitError } from '../../src/index.ts';
import { composeInstructions } from '../../src/plugin/define.ts';
import { buildHttpApp } from '../../src/transports/http/server.ts';
import { startClient } from '../helpers/client.ts';

const first = definePlugin({
  name: 'first',
  instructions: 'Use first_tool for A.',
  register(app) {
    app.add(defineTool({ name: 'first_tool', description: 'A' }, async () => 'a'));
  },
});
const second = definePlugin({
  name: 'second',
  settings: z.object({ loud: z.stringbool().default(false) }),
  instructions: ({ loud }) => (loud ? 'Shout with second_tool.' : 'Whisper with second_tool.'),
  register(app) {
    app.add(defineTool({ name: 'second_tool', description: 'B' }, async () => 'b'));
  },
});
const silent = definePlugin({ name: 'silent', instructions: () => undefined, register() {} });

const ENV = { MCP_SERVER_INSTRUCTIONS: '  This server manages notes.  ', MCP_SECOND_LOUD: 'true' };
const EXPECTED = 'This server manages notes.\n\nUse first_tool for A.\n\nShout with second_tool.';

describe('instructions', () => {
  test('the server setting comes first, then plugins in load order; blank parts are dropped', () => {
    const plugins = [
      { definition: second, settings: { loud: false } },
      { definition: silent, settings: {} },
      { definition: first, settings: {} },
    ] as Parameters<typeof composeInstructions>[1];
    assert.equal(
      composeInstructions('Server.', plugins),
      'Server.\n\nWhisper with second_tool.\n\nUse first_tool for A.',
    );
    assert.equal(composeInstructions(undefined, plugins.slice(1, 2)), undefined);
    assert.equal(composeInstructions('   ', []), undefined);
  });

  test('2025 wire: initialize carries the joined instructions', async () => {
    const client = await startClient({ plugins: [first, second, silent], env: ENV });
    assert.equal(client.initializeResult?.instructions, EXPECTED);
    await client.close();
  });

  test('2026 wire: server/discover carries the same instructions', async () => {
    const client = await startClient({ plugins: [first, second, silent], env: ENV, wire: '2026' });
    const discover = await client.request('server/discover');
    assert.equal(discover.instructions, EXPECTED);
    await client.close();
  });

  test('no setting and no plugin instructions: the field is left out on both wires', async () => {
    const legacy = await startClient({ plugins: [silent] });
    assert.equal('instructions' in (legacy.initializeResult ?? {}), false);
    await legacy.close();
    const modern = await startClient({ plugins: [silent], wire: '2026' });
    assert.equal('instructions' in (await modern.request('server/discover')), false);
    await modern.close();
  });

  test('over HTTP the official client reads them on the 2025 and the 2026 wire', async () => {
    const env = { MCP_HTTP_HOST: '127.0.0.1', MCP_HTTP_PORT: '0', ...ENV };
    const settings = parseSettings(env);
    const server = await buildMcpServer({
      settings,
      plugins: [
        { definition: first, settings: {} },
        { definition: second as never, settings: { loud: true } },
      ],
      logger: pino({ level: 'silent' }),
    });
    const app = await buildHttpApp(server, httpOptions(settings));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as { port: number }).port;
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    try {
      for (const mode of ['legacy', '2026'] as const) {
        const client = new Client(
          { name: 'instructions-test', version: '1.0.0' },
          mode === '2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
        );
        await client.connect(new StreamableHTTPClientTransport(url));
        assert.equal(client.getInstructions(), EXPECTED, `instructions on the ${mode} wire`);
        await client.close();
      }
    } finally {
      app.server.closeAllConnections();
      await app.close();
      await server.close();
    }
  });

  test('definePlugin refuses instructions that are neither text nor a function', () => {
    assert.throws(
      () => definePlugin({ name: 'bad', instructions: 42 as never, register() {} }),
      (e: ToolkitError) => e instanceof ToolkitError && e.code === InternalCode.PluginInvalid,
    );
  });
});
