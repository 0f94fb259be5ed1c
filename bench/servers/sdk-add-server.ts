/**
 * The `add` tool on the official SDK v2's `McpServer`, registered the way its documentation
 * shows (zod input and output schemas), for the SDK baselines over HTTP and stdio.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const input = z.object({
  a: z.number().describe('The first addend'),
  b: z.number().describe('The second addend'),
});
const output = z.object({ sum: z.number().describe('a + b') });

/** A fresh SDK server holding the `add` tool (the SDK's factories build one per request or connection). */
export function createSdkAddServer(): McpServer {
  const server = new McpServer({ name: 'bench-sdk', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'add',
    {
      description: 'Add two numbers',
      inputSchema: input,
      outputSchema: output,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ a, b }) => {
      const result = { sum: a + b };
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    },
  );
  return server;
}
