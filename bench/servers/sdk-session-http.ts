/**
 * Baseline for the 2025 wire with sessions: `createMcpHandler` keeps none (its 2025 leg is
 * stateless), so this is the SDK's own sessionful wiring, the one its documentation points
 * to for 2025 deployments: one `McpServer` and one `WebStandardStreamableHTTPServerTransport`
 * per session, kept in a map by `Mcp-Session-Id`, JSON replies. It serves the 2025 wire only.
 * Usage: `node bench/servers/sdk-session-http.ts [--port N]`.
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import Fastify from 'fastify';
import { bridge } from './fetch-bridge.ts';
import { announce, portArg } from './port-arg.ts';
import { createSdkAddServer } from './sdk-add-server.ts';

const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

async function serve(request: Request, options: { parsedBody?: unknown }): Promise<Response> {
  const id = request.headers.get('mcp-session-id');
  const existing = id === null ? undefined : sessions.get(id);
  if (existing) return existing.handleRequest(request, options);
  if (id !== null) {
    return new Response(null, { status: 404 });
  }
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: true,
    onsessioninitialized: (sid) => {
      sessions.set(sid, transport);
    },
    onsessionclosed: (sid) => {
      sessions.delete(sid);
    },
  });
  await createSdkAddServer().connect(transport);
  return transport.handleRequest(request, options);
}

const app = Fastify({ logger: false });
app.route({ method: ['GET', 'POST', 'DELETE'], url: '/mcp', handler: bridge(serve) });
announce(await app.listen({ host: '127.0.0.1', port: portArg() }));
