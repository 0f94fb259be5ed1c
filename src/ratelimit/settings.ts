/** The `MCP_*` settings of this area, merged into the one settings schema (src/config/settings.ts). */
import { z } from 'zod';
import { envEnum, envInt, envString } from '../base/env.ts';

/** A redis:// or rediss:// URL; blank means "unset" (buckets stay in process memory). */
const REDIS_URL = envString().pipe(
  z.url({ protocol: /^rediss?$/, error: 'expected a redis:// or rediss:// URL' }).optional(),
);

export const rateLimitSettingsShape = {
  MCP_RATE_LIMIT_RPS: envInt(0, 0, 1_000_000).describe(
    'Calls per second each client (API key, token subject, else address) may sustain; 0 turns the per-client limit off. A JSON-RPC batch costs one call per request in it. Failed authentications (401) of one address are held to the same rate in a bucket of their own.',
  ),
  MCP_RATE_LIMIT_BURST: envInt(0, 0, 10_000_000).describe(
    'Calls a client may send at once: the size of its token bucket, which refills at MCP_RATE_LIMIT_RPS per second. 0 or unset: twice MCP_RATE_LIMIT_RPS.',
  ),
  MCP_RATE_LIMIT_FAIL: envEnum(['open', 'closed'], 'open').describe(
    'When Redis is unreachable: `open` lets calls through unlimited and reports a degradation, `closed` refuses them with 503 and /readyz fails.',
  ),
  MCP_REDIS_URL: REDIS_URL.describe(
    'Redis URL (redis:// or rediss:// for TLS) for state shared by replicas, such as rate-limit buckets (keys under `mcp-toolkit:`); a password may sit in it (`rediss://:PASSWORD@host:6380`). Unset: state stays in process memory.',
  ),
  MCP_REDIS_PASSWORD: envString().describe(
    "Redis's password (AUTH), kept apart from MCP_REDIS_URL so the URL can live in plain configuration and the password in a secret store. Give the password here or in the URL, not both.",
  ),
  MCP_REDIS_TLS_CA: envString().describe(
    "Path of a PEM file with the CA certificate(s) that signed the Redis server's certificate (a private CA, as managed Redis services and self-run TLS Redis often use), trusted for rediss:// connections in place of Node's built-in list. Unset: Node's built-in CAs (plus NODE_EXTRA_CA_CERTS).",
  ),
};
