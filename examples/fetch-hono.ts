/**
 * The server's plugins under Hono, through the fetch handler (`@mcp-toolkit/server/fetch`):
 * the 2026-07-28 stateless wire as `(request: Request) => Promise<Response>`, here on Hono's
 * Node adapter. The same handler runs under Bun, Deno, Next.js route handlers or a worker.
 *
 *   MCP_PLUGINS=filesystem node examples/fetch-hono.ts      # http://127.0.0.1:8787/mcp
 *
 * PORT picks the port (0: any free one); the first line on stdout names the endpoint. The
 * MCP_* settings apply as for `mcp-toolkit run`: MCP_HTTP_PATH, MCP_MAX_BODY_BYTES, the Host
 * and Origin checks, and MCP_AUTH with its keys or issuer. Clients speak 2026-07-28 (the
 * official v2 client pinned to it, say); initialize, sessions, GET and DELETE are refused.
 */
import path from 'node:path';
import { type HttpBindings, serve } from '@hono/node-server';
import { createFetchHandler } from '@mcp-toolkit/server/fetch';
import { Hono } from 'hono';
import { createAuthenticator } from '../src/auth/create.ts';
import { resourceUrls } from '../src/auth/resource-metadata.ts';
import { parseSettings } from '../src/config/settings.ts';
import { loadPlugins } from '../src/plugin-loader.ts';
import { createServer } from '../src/server.ts';
import { createLogger } from '../src/telemetry/logger.ts';

const port = Number(process.env.PORT ?? 8787);
const settings = parseSettings(process.env);
const logger = createLogger({ level: settings.MCP_LOG_LEVEL, format: settings.MCP_LOG_FORMAT });
const plugins = await loadPlugins(settings.MCP_PLUGINS, process.env, path.resolve(import.meta.dirname, '..'));
// API keys or OAuth, as MCP_AUTH says; the resource is the URL clients use.
const publicUrl = settings.MCP_PUBLIC_URL ?? `http://127.0.0.1:${port}`;
const auth = createAuthenticator(
  settings,
  resourceUrls({ publicUrl, mcpPath: settings.MCP_HTTP_PATH, audience: settings.MCP_OAUTH_AUDIENCE }),
);
const server = await createServer({ settings, plugins, logger, auth });

// Path, body limit, Host/Origin checks from the settings; any of them can be overridden here.
const handle = createFetchHandler(server, { path: settings.MCP_HTTP_PATH });

const app = new Hono<{ Bindings: HttpBindings }>();
app.get('/healthz', (c) => c.json({ status: 'ok' }));
// The client's address and port (for logs, spans and a rate limiter's per-client key) are the Node socket's.
app.all(settings.MCP_HTTP_PATH, (c) =>
  handle(c.req.raw, { address: c.env.incoming.socket.remoteAddress, port: c.env.incoming.socket.remotePort }),
);

const http = serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, (info) => {
  console.log(`MCP endpoint: http://127.0.0.1:${info.port}${settings.MCP_HTTP_PATH}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    http.close(() => void server.close());
  });
}
