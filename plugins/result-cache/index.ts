/**
 * The result-cache plugin: a time-based cache of tool results, for tools annotated both
 * `readOnlyHint` and `idempotentHint` (the same arguments give the same answer and change
 * nothing, so serving a recent answer again is safe). A middleware: a hit answers without
 * running the tool.
 *
 * Entries are per caller (the authenticated client id, or the 2025 session when auth is off)
 * and per arguments; error results are never kept. A hit skips the tool's own checks (scopes,
 * per-tool rate limit) for the same caller within the TTL, since that caller passed them.
 *
 * Settings: `MCP_RESULT_CACHE_TTL_MS` (default 30 000), `MCP_RESULT_CACHE_MAX_ENTRIES`
 * (default 1000; the oldest entry goes first).
 */

import { definePlugin, type JsonObject } from '@mcp-toolkit/server';
import { z } from 'zod';

export const resultCacheSettings = z.object({
  ttlMs: z.coerce
    .number()
    .int()
    .min(1)
    .max(86_400_000)
    .default(30_000)
    .describe('How long a result is served again, in ms.'),
  maxEntries: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(1000)
    .describe('Results kept at most; the oldest goes first.'),
});

/** Arguments as a key: object keys sorted, so `{a, b}` and `{b, a}` are one entry. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as JsonObject).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export default definePlugin({
  name: 'result-cache',
  description: 'Serves recent results of read-only, idempotent tools again for a while.',
  settings: resultCacheSettings,
  register(app, settings) {
    const { ttlMs, maxEntries } = settings;
    const entries = new Map<string, { at: number; result: JsonObject }>();
    app.use({
      name: 'result-cache',
      async onCallTool(call, next) {
        const hints = call.tool?.annotations;
        if (hints?.readOnlyHint !== true || hints.idempotentHint !== true) return next();
        const caller = call.ctx.identity?.clientId ?? call.ctx.sessionId ?? '';
        const key = `${caller}\u0000${call.tool?.name}\u0000${stableJson(call.params.arguments ?? {})}`;
        const hit = entries.get(key);
        if (hit && Date.now() - hit.at < ttlMs) return structuredClone(hit.result);
        entries.delete(key);
        const result = await next();
        if (result.isError !== true && result.resultType !== 'input_required') {
          entries.set(key, { at: Date.now(), result: structuredClone(result) });
          if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
        }
        return result;
      },
    });
  },
});
