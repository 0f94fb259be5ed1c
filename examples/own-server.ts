import { createServer, definePlugin, defineTool } from '@mcp-toolkit/server';
import { z } from 'zod';

const clock = definePlugin({
  name: 'clock',
  register(app) {
    app.add(
      defineTool({ name: 'now', description: 'The current time (ISO 8601)', input: z.object({}) }, async () =>
        new Date().toISOString(),
      ),
    );
  },
});

const running = await createServer({
  plugins: [clock],
  settings: {
    MCP_HTTP_HOST: '127.0.0.1',
    MCP_HTTP_PORT: Number(process.env.PORT ?? 0),
    MCP_LOG_LEVEL: 'warn',
  },
  transport: 'http',
});
console.log(`MCP endpoint: ${running.url}`);
// Run with PORT set, it serves until SIGTERM; without, it shows the start and the drain.
if (process.env.PORT) process.once('SIGTERM', () => void running.close());
else await running.close();
