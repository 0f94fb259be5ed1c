/** The `MCP_*` settings of this area, merged into the one settings schema (src/config/settings.ts). */
import { z } from 'zod';
import { envEnum, envInt, envString } from '../base/env.ts';

/** A redis:// or rediss:// URL; blank means "unset" (buckets stay in process memory). */
const REDIS_URL = envString().pipe(
  z.url({ protocol: /^rediss?$/, error: 'expected a redis:// or rediss:// URL' }).optional(),
);

export const rateLimitSettingsShape = {
  MCP_RATE_LIMIT_RPS: envInt(0, 0, 1_000_000).describe(
    'Calls per second each client (API key, token subject, else address) may sustain; 0 turns the per-client limit off. A JSON-RPC batch costs one call per request in it.',
  ),
  MCP_RATE_LIMIT_BURST: envInt(0, 0, 10_000_000).describe(
    'Calls a client may send at once: the size of its token bucket, which refills at MCP_RATE_LIMIT_RPS per second. 0 or unset: twice MCP_RATE_LIMIT_RPS.',
  ),
  MCP_RATE_LIMIT_FAIL: envEnum(['open', 'closed'], 'open').describe(
    'When Redis is unreachable: `open` lets calls through unlimited and reports a degradation, `closed` refuses them with 503 and /readyz fails.',
  ),
  MCP_REDIS_URL: REDIS_URL.describe(
    'Redis URL (redis:// or rediss://) for state shared by replicas, such as rate-limit buckets (keys under `mcp-toolkit:`). Unset: state stays in process memory.',
  ),
};
