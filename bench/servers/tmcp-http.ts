/**
 * Peer: tmcp (`tmcp` with `@tmcp/adapter-zod`, served by `@tmcp/transport-http`), the fastest
 * TypeScript MCP framework by its published benchmarks, with the same `add` tool (same
 * schemas, same result) registered the way its README shows. Its transport is a web-standard
 * `respond(Request)`, hosted here by `@hono/node-server` as tmcp's examples host it on Node;
 * it serves the 2026-07-28 wire per request and the 2025 wire with its own sessions.
 * Usage: `node bench/servers/tmcp-http.ts [--port N]`.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { ZodJsonSchemaAdapter } from '@tmcp/adapter-zod';
import { HttpTransport } from '@tmcp/transport-http';
import { McpServer } from 'tmcp';
import { z } from 'zod';
import { announce, portArg } from './port-arg.ts';

const server = new McpServer(
  { name: 'bench-tmcp', version: '1.0.0', description: 'The benchmark tool: add two numbers' },
  { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: {} } },
);

server.tool(
  {
    name: 'add',
    description: 'Add two numbers',
    schema: z.object({
      a: z.number().describe('The first addend'),
      b: z.number().describe('The second addend'),
    }),
    outputSchema: z.object({ sum: z.number().describe('a + b') }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  async ({ a, b }) => {
    const result = { sum: a + b };
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  },
);

const transport = new HttpTransport(server);
const http = serve(
  {
    fetch: async (request: Request) =>
      (await transport.respond(request)) ?? new Response('Not found', { status: 404 }),
    hostname: '127.0.0.1',
    port: portArg(),
  },
  (info: AddressInfo) => announce(`http://127.0.0.1:${info.port}`),
);
process.on('SIGTERM', () => http.close(() => process.exit(0)));
