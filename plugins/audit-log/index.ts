/**
 * The audit-log plugin: one log line per tool call (who, which tool, outcome, duration, and
 * the arguments with values under secret-looking keys redacted), written by a middleware.
 * An example of cross-cutting code in a plugin: nothing in the core knows it exists.
 *
 * Settings: `MCP_AUDIT_LOG_ARGS` (default true: include the redacted arguments).
 */

import { definePlugin, type JsonObject, redactArgs } from '@mcp-toolkit/server';
import { z } from 'zod';

export const auditLogSettings = z.object({
  args: z
    .stringbool({ error: 'expected true or false' })
    .default(true)
    .describe('Include the call arguments (values under secret-looking keys redacted) in each audit line.'),
});

export default definePlugin({
  name: 'audit-log',
  description: 'One audit log line per tool call, arguments redacted.',
  settings: auditLogSettings,
  register(app, settings) {
    const { args: withArgs } = settings;
    app.use({
      name: 'audit-log',
      async onCallTool(call, next) {
        const started = performance.now();
        const line: JsonObject = {
          audit: 'tools/call',
          tool: call.params.name,
          clientId: call.ctx.identity?.clientId ?? null,
          sessionId: call.ctx.sessionId,
          requestId: call.ctx.requestId,
        };
        if (withArgs) line.args = redactArgs(call.params.arguments ?? {}) as JsonObject;
        try {
          const result = await next();
          line.outcome = result.isError === true ? 'tool_error' : 'ok';
          return result;
        } catch (err) {
          line.outcome = 'error';
          throw err;
        } finally {
          line.durationMs = Math.round((performance.now() - started) * 1000) / 1000;
          app.logger.info(line, 'audit');
        }
      },
    });
  },
});
