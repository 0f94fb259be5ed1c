/**
 * A minimal server on `mcp-framework`, written the way its README shows: one class-based tool
 * whose schema is a zod object, registered on an MCPServer. Nothing in it is shaped by the kit.
 * Plain JavaScript beside its own node_modules (mcp-framework needs zod 3; the toolkit is on
 * zod 4), so the toolkit's type check does not need this folder installed.
 *
 *   node test/testing/corpus/mcp-framework/server.js              stdio
 *   node test/testing/corpus/mcp-framework/server.js http PORT    HTTP Stream on 127.0.0.1:PORT/mcp
 */
import { MCPServer, MCPTool } from 'mcp-framework';
import { z } from 'zod';

const AddToolSchema = z.object({
  a: z.number().describe('The first number'),
  b: z.number().describe('The second number'),
});

class AddTool extends MCPTool {
  name = 'add';
  description = 'Add two numbers';
  schema = AddToolSchema;
  annotations = { readOnlyHint: true, openWorldHint: false };

  async execute(input) {
    return `Result: ${input.a + input.b}`;
  }
}

const http = process.argv[2] === 'http';
const server = new MCPServer({
  name: 'mcp-framework-fixture',
  version: '1.0.0',
  // Its tools, prompts and resources folders are looked for here: there are none.
  basePath: import.meta.dirname,
  ...(http
    ? {
        transport: {
          type: 'http-stream',
          options: { host: '127.0.0.1', port: Number(process.argv[3]), endpoint: '/mcp' },
        },
      }
    : {}),
});
server.addTool(AddTool);
await server.start();
