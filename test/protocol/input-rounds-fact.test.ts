/**
 * `ctx.inputRoundsInRequest`, the wire-neutral fact a handler reads instead of `ctx.wire` when
 * it holds something of its own between input rounds (the proxy plugin holds the upstream's
 * call): true on the 2025 wire, where the rounds are server-to-client requests inside the
 * call's request, false on the 2026 wire, where each round ends the request and the client
 * retries; the same on every round of one call. It comes from the request's wire profile
 * (src/protocol/wires/), so no plugin compares the wire (test/architecture/wire-profiles.test.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { definePlugin, defineTool } from '../../src/index.ts';
import { TestClient } from '../../src/testing/client/test-client.ts';

const plugin = definePlugin({
  name: 'rounds-fact',
  register(app) {
    app.add(
      defineTool(
        {
          name: 'rounds_fact',
          description: 'Says where its input rounds run, before and after one round.',
          input: z.object({}),
          asks: ['elicitation'],
        },
        async (_args, ctx) => {
          const answer = ctx.inputResponses?.ok;
          if (answer === undefined) {
            return ctx.askInput(
              { ok: ctx.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: {} } }) },
              { first: ctx.inputRoundsInRequest },
            );
          }
          const first = (ctx.requestState as { first: boolean }).first;
          return `first round ${first}, second round ${ctx.inputRoundsInRequest}`;
        },
      ),
    );
  },
});

for (const [wire, inRequest] of [
  ['2025', true],
  ['2026', false],
] as const) {
  test(`the ${wire} wire: input rounds run ${inRequest ? 'inside the request' : 'as retries'}, on every round`, async () => {
    const client = await TestClient.start({
      plugins: [plugin],
      wire,
      onElicit: () => ({ action: 'accept', content: {} }),
    });
    try {
      assert.equal(
        await client.callText('rounds_fact'),
        `first round ${inRequest}, second round ${inRequest}`,
      );
    } finally {
      await client.close();
    }
  });
}
