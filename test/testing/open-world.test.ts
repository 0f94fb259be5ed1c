/**
 * `mcp-toolkit test` respects the open world: a tool that may reach a real API (annotated
 * `openWorldHint: true`, or not annotated `false`, the spec's default) gets its basic
 * schema-valid call only, never the generated injection strings, unless `fuzzOpenWorld`
 * (`--fuzz-open-world`); the skip says why. A tool annotated `openWorldHint: false` gets them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { definePlugin, defineTool } from '../../src/index.ts';
import { startServer } from '../helpers/client.ts';
import { runPlan } from './helpers/fixtures.ts';

function recordingServer() {
  const received: Record<string, string[]> = { forecast: [], forecast_plain: [], echo: [] };
  const tool = (name: string, openWorldHint: boolean | undefined) =>
    defineTool(
      {
        name,
        description: `Records what it is sent (${name})`,
        input: z.object({ text: z.string().describe('Any text') }),
        annotations: { readOnlyHint: true, ...(openWorldHint === undefined ? {} : { openWorldHint }) },
      },
      async ({ text }) => {
        received[name]!.push(text);
        return 'ok';
      },
    );
  const plugin = definePlugin({
    name: 'recorder',
    register(app) {
      app.add(tool('forecast', true));
      app.add(tool('forecast_plain', undefined));
      app.add(tool('echo', false));
    },
  });
  const server = startServer({ plugins: [plugin] });
  return { server, received };
}

const hostile = (values: string[]) => values.filter((v) => /DROP TABLE|<script>/.test(v));

test('an open-world tool gets its basic call only; a closed-world one the generated values', async () => {
  const { server, received } = recordingServer();
  const run = await runPlan(await server, { allowWrites: false, fuzzOpenWorld: false });
  assert.equal(received.forecast!.length, 1, `forecast got ${JSON.stringify(received.forecast)}`);
  assert.equal(
    received.forecast_plain!.length,
    1,
    `forecast_plain got ${JSON.stringify(received.forecast_plain)}`,
  );
  assert.deepEqual(hostile([...received.forecast!, ...received.forecast_plain!]), []);
  assert.ok(hostile(received.echo!).length > 0, `echo got ${JSON.stringify(received.echo)}`);
  assert.match(
    run.skipped.get('test_forecast_schema_1') ?? '',
    /annotated openWorldHint: true, so its calls may reach a real API/,
  );
  assert.match(run.skipped.get('test_forecast_plain_schema_1') ?? '', /not annotated openWorldHint: false/);
  assert.match(run.skipped.get('test_forecast_schema_1') ?? '', /--fuzz-open-world/);
  assert.equal(run.skipped.get('test_echo_schema_1'), undefined);
});

test('fuzzOpenWorld sends the generated values to open-world tools too', async () => {
  const { server, received } = recordingServer();
  await runPlan(await server, { allowWrites: false, fuzzOpenWorld: true });
  assert.ok(hostile(received.forecast!).length > 0, `forecast got ${JSON.stringify(received.forecast)}`);
});
