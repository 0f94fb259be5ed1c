/** The `MCP_*` settings of this area, merged into the one settings schema (src/config/settings.ts). */
import { z } from 'zod';
import { envEnum, envInt, envString } from '../base/env.ts';
import { parseRedisUrl, REDIS_URL_FORMS } from '../redis/url.ts';

/**
 * One Redis server (redis://, rediss://), a Sentinel set or a Cluster (redis-url.ts); blank
 * means "unset" (buckets stay in process memory).
 */
const REDIS_URL = envString().pipe(
  z
    .string()
    .superRefine((value, ctx) => {
      try {
        const target = parseRedisUrl(value);
        if (target.kind === 'server' && !URL.canParse(value))
          throw new RangeError(`expected ${REDIS_URL_FORMS}`);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    })
    .optional(),
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
    'Redis for state shared by replicas (keys under `mcp-toolkit:`): one server (`redis://` or `rediss://`), a Sentinel set (`redis+sentinel://host:port[,host:port]/<master name>`) or a Cluster (`redis+cluster://host:port[,host:port]`); `rediss+` for TLS; a password may sit in it (`rediss://:PASSWORD@host:6380`). Unset: state stays in process memory.',
  ),
  MCP_REDIS_PASSWORD: envString().describe(
    "Redis's password (AUTH), kept apart from MCP_REDIS_URL so the URL can live in plain configuration and the password in a secret store. Give the password here or in the URL, not both.",
  ),
  MCP_REDIS_TLS_CA: envString().describe(
    "Path of a PEM file with the CA certificate(s) that signed the Redis server's certificate (a private CA, as managed Redis services and self-run TLS Redis often use), trusted for rediss:// connections in place of Node's built-in list. Unset: Node's built-in CAs (plus NODE_EXTRA_CA_CERTS).",
  ),
};
