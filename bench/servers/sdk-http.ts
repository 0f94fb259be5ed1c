/**
 * Baseline: the official SDK v2's `createMcpHandler` on a Fastify route. It serves the
 * 2026 wire with a server built per request, and the 2025 wire through its stateless
 * fallback (a fresh server and transport per request; it keeps no sessions, so GET and
 * DELETE answer 405). Usage: `node bench/servers/sdk-http.ts [--port N]`.
 */
import { createMcpHandler } from '@modelcontextprotocol/server';
import Fastify from 'fastify';
import { bridge } from './fetch-bridge.ts';
import { announce, portArg } from './port-arg.ts';
import { createSdkAddServer } from './sdk-add-server.ts';

const handler = createMcpHandler(() => createSdkAddServer());
const app = Fastify({ logger: false });
app.route({ method: ['GET', 'POST', 'DELETE'], url: '/mcp', handler: bridge(handler.fetch) });
announce(await app.listen({ host: '127.0.0.1', port: portArg() }));
