/**
 * The benchmark's one tool, `add`, as a normal plugin: the server loads it with
 * `MCP_PLUGINS=./bench/add-plugin.ts`. The baselines in `bench/servers/` register the same
 * tool (same schemas, same result) so every server does the same work per call.
 */
import { z } from 'zod';
import { definePlugin, defineTool } from '../src/index.ts';

export const addTool = defineTool(
  {
    name: 'add',
    description: 'Add two numbers',
    input: z.object({
      a: z.number().describe('The first addend'),
      b: z.number().describe('The second addend'),
    }),
    output: z.object({ sum: z.number().describe('a + b') }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  async ({ a, b }) => ({ sum: a + b }),
);

export default definePlugin({
  name: 'bench-add',
  description: 'The benchmark tool: add two numbers',
  register(app) {
    app.add(addTool);
  },
});
