/**
 * A tool that asks the client for sampling or roots (deprecated in MCP 2026-07-28, SEP-2577)
 * gets one warning naming the revision: at start when it declares `asks`, else on its first
 * such round, on either wire; never again for that tool, and none for elicitation.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { buildMcpServer } from '../../src/assembly/server.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { definePlugin, defineTool, type JsonObject } from '../../src/index.ts';
import { handleOf, startClient } from '../helpers/client.ts';

const summarise = defineTool(
  { name: 'summarise', description: 'Summarises with the client model', asks: ['sampling'] },
  async (_args, ctx) => {
    if (ctx.inputResponses?.summary) return 'summarised';
    return ctx.askInput({
      summary: ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
        maxTokens: 10,
      }),
    });
  },
);
const rootsUndeclared = defineTool(
  { name: 'where', description: 'Lists the client roots' },
  async (_a, ctx) => (ctx.inputResponses?.roots ? 'listed' : ctx.askInput({ roots: ctx.listRoots() })),
);
const asksName = defineTool(
  { name: 'ask_name', description: 'Asks the user for a name', asks: ['elicitation'] },
  async (_a, ctx) =>
    ctx.inputResponses?.who
      ? 'named'
      : ctx.askInput({
          who: ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: {} } }),
        }),
);

const plugin = definePlugin({
  name: 'asker',
  register(app) {
    app.add(summarise, rootsUndeclared, asksName);
  },
});

async function start() {
  const lines: JsonObject[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const server = await buildMcpServer({
    settings: parseSettings({}),
    logger,
    plugins: [{ definition: plugin as never, settings: {} }],
  });
  const deprecations = () => lines.filter((l) => l.revision === '2026-07-28');
  return { server, deprecations };
}

const answers = {
  onSample: () => ({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }),
  onRoots: () => ({ roots: [{ uri: 'file:///tmp', name: 'tmp' }] }),
  onElicit: () => ({ action: 'accept', content: {} }),
};

for (const wire of ['2025', '2026'] as const) {
  test(`sampling declared: one warning at start; roots undeclared: one on first use (${wire} wire)`, async () => {
    const { server, deprecations } = await start();
    const atStart = deprecations();
    assert.deepEqual(
      atStart.map((l) => [l.tool, l.deprecated]),
      [['summarise', ['sampling']]],
    );
    assert.match(String(atStart[0]?.msg), /MCP 2026-07-28 deprecates \(SEP-2577\)/);

    const client = await startClient({ server: handleOf(server), wire, ...answers });
    for (let i = 0; i < 2; i++) {
      assert.equal(await client.callText('summarise'), 'summarised');
      assert.equal(await client.callText('where'), 'listed');
      assert.equal(await client.callText('ask_name'), 'named');
    }
    const all = deprecations();
    assert.deepEqual(
      all.map((l) => [l.tool, l.deprecated]),
      [
        ['summarise', ['sampling']],
        ['where', ['roots']],
      ],
    );
    assert.match(String(all[1]?.msg), /declare asks: \['roots'\] on the tool/);
    await client.close();
    await server.close();
  });
}

test('asks must list client features', () => {
  assert.throws(
    () => defineTool({ name: 't', description: 'd', asks: ['logging' as never] }, async () => 'x'),
    /asks lists what the handler asks the client for: elicitation, sampling, roots/,
  );
});
