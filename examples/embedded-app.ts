import { definePlugin, defineTool } from '@mcp-toolkit/server';
import mcpToolkit from '@mcp-toolkit/server/fastify';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { z } from 'zod';

/** The service's own MCP tools: notes kept in memory. */
export const notesPlugin = definePlugin({
  name: 'notes',
  register(app) {
    const notes: string[] = [];
    app.add(
      defineTool(
        { name: 'add_note', description: 'Keeps a note', input: z.object({ text: z.string() }) },
        async ({ text }) => {
          notes.push(text);
          return `noted (${notes.length})`;
        },
      ),
      defineTool(
        { name: 'list_notes', description: 'The notes kept so far', input: z.object({}) },
        async () => (notes.length > 0 ? notes.join('\n') : 'no notes'),
      ),
    );
    app.onClose(() => app.logger.info({ notes: notes.length }, 'notes dropped'));
  },
});

export interface AppOptions {
  /** `id:key` pairs, as MCP_API_KEYS takes them. */
  apiKeys: readonly string[];
  logger?: FastifyServerOptions['logger'];
}

export async function buildApp(options: AppOptions) {
  const app = Fastify({ logger: options.logger ?? true });
  // An application-level hook: it runs for every request, the MCP ones too.
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  app.get('/hello', async () => ({ hello: 'world' }));
  // The service's own readiness probe, with the MCP side's checks in it.
  app.get('/ready', async (_req, reply) => {
    const mcp = await app.mcpToolkit.readiness();
    return reply.code(mcp.ready ? 200 : 503).send({ ready: mcp.ready, mcp: mcp.checks });
  });
  await app.register(mcpToolkit, {
    path: '/mcp',
    plugins: [notesPlugin],
    settings: { MCP_AUTH: 'api_key', MCP_API_KEYS: options.apiKeys, MCP_SERVER_NAME: 'notes-service' },
  });
  return app;
}

// Run with PORT set (`PORT=3000 MCP_API_KEYS=me:<16+ characters> node embedded-app.ts`), it
// serves until SIGTERM, which drains MCP with the rest of the app.
if (import.meta.main && process.env.PORT) {
  const app = await buildApp({ apiKeys: (process.env.MCP_API_KEYS ?? '').split(',') });
  await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
  process.once('SIGTERM', () => void app.close());
}
