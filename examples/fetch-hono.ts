/**
 * The server's plugins under Hono, through the fetch handler (`@mcp-toolkit/server/fetch`):
 * both MCP wires as `(request: Request) => Promise<Response>`, here on Hono's
 * Node adapter. The same handler runs under Bun, Deno or workerd (docs/embedding.md).
 *
 *   MCP_PLUGINS=filesystem node examples/fetch-hono.ts      # http://127.0.0.1:8787/mcp
 *
 * PORT picks the port (0: any free one); the first line on stdout names the endpoint. The
 * MCP_* settings apply as for `mcp-toolkit run`: MCP_HTTP_PATH, MCP_MAX_BODY_BYTES, the Host
 * and Origin checks, and MCP_AUTH with its keys or issuer. Any client connects: the 2025 wire's
 * sessions live in the server's store (memory here; Redis with MCP_REDIS_URL), and the 2026
 * wire needs none.
 */
import { type HttpBindings, serve } from '@hono/node-server';
import { createServer } from '@mcp-toolkit/server';
import { createFetchHandler } from '@mcp-toolkit/server/fetch';
import { Hono } from 'hono';

const port = Number(process.env.PORT ?? 8787);
// The plugins, auth (MCP_AUTH) and limits the environment names, with no listener of its own.
const running = await createServer({ env: process.env, transport: 'none' });
const { server, settings } = running;

// Path, body limit, Host/Origin checks from the settings; any of them can be overridden here.
const handle = createFetchHandler(server, { path: settings.MCP_HTTP_PATH });

const app = new Hono<{ Bindings: HttpBindings }>();
app.get('/healthz', (c) => c.json({ status: 'ok' }));
// The MCP endpoint and the plugins' own HTTP routes; any other path is answered 404. The client's
// address and port (for logs, spans and a rate limiter's per-client key) are the Node socket's.
app.all('*', (c) =>
  handle(c.req.raw, { address: c.env.incoming.socket.remoteAddress, port: c.env.incoming.socket.remotePort }),
);

const http = serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, (info) => {
  console.log(`MCP endpoint: http://127.0.0.1:${info.port}${settings.MCP_HTTP_PATH}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    http.close(() => void running.close());
  });
}
