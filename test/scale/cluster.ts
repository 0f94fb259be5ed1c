/**
 * A small cluster on loopback for the scale-out tests: one real `redis-server`, N replicas of
 * the real CLI sharing `MCP_REDIS_URL` and `MCP_STATE_SECRET`, and a round-robin proxy in
 * front of them. Also the raw HTTP pieces the tests share (SSE reading, readiness, polling).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type RedisServer, type RedisServerOptions, startRedisServer } from '../helpers/redis-server.ts';
import { type SpawnedHttpServer, spawnHttpServer } from '../helpers/spawn-server.ts';
import { type RoundRobinProxy, startRoundRobinProxy } from './round-robin-proxy.ts';

export const SCALE_PLUGINS =
  'conformance,./test/fixtures/echo-plugin.ts,./test/scale/fixtures/scale-plugin.ts';

export interface Cluster extends ReplicaSet {
  readonly redis: RedisServer;
}

/** Replicas sharing one Redis (any form of `MCP_REDIS_URL`) behind a round-robin proxy. */
export interface ReplicaSet {
  readonly replicas: readonly SpawnedHttpServer[];
  readonly proxy: RoundRobinProxy;
  /** The MCP endpoint behind the proxy. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts `count` replicas (in parallel) on the Redis `redisUrl` names, and the proxy. `env`
 * adds to the replicas' settings.
 *
 * @example
 * const set = await startReplicas(redisCluster.url, {}, 3);
 * after(() => set.stop());
 */
export async function startReplicas(
  redisUrl: string,
  env: Record<string, string> = {},
  count = 2,
): Promise<ReplicaSet> {
  const settings = {
    MCP_REDIS_URL: redisUrl,
    MCP_STATE_SECRET: randomBytes(32).toString('hex'),
    MCP_PLUGINS: SCALE_PLUGINS,
    MCP_SSE_RETRY_MS: '100',
    MCP_LOG_LEVEL: 'warn',
    MCP_LOG_FORMAT: 'json',
    ...env,
  };
  const started = await Promise.allSettled(Array.from({ length: count }, () => spawnHttpServer(settings)));
  const replicas = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) {
    await Promise.all(replicas.map((r) => r.stop()));
    throw (failed as PromiseRejectedResult).reason;
  }
  const proxy = await startRoundRobinProxy(replicas.map((r) => new URL(r.url).origin));
  return {
    replicas,
    proxy,
    url: `${proxy.origin}/mcp`,
    async stop() {
      await proxy.close();
      await Promise.all(replicas.map((r) => r.stop()));
    },
  };
}

/**
 * Starts Redis (as `options` say), `count` replicas (in parallel) and the proxy. `env` adds
 * to the replicas' settings.
 *
 * @example
 * const cluster = await startCluster();
 * after(() => cluster.stop());
 */
export async function startCluster(
  env: Record<string, string> = {},
  count = 2,
  options: RedisServerOptions = {},
): Promise<Cluster> {
  const redis = await startRedisServer(options);
  const set = await startReplicas(
    redis.url,
    // A TLS Redis (options.tls) is signed by a throwaway CA the replicas must trust.
    { ...(redis.caFile === undefined ? {} : { MCP_REDIS_TLS_CA: redis.caFile }), ...env },
    count,
  ).catch(async (err: unknown) => {
    await redis.stop();
    throw err;
  });
  return {
    redis,
    ...set,
    async stop() {
      await set.stop();
      await redis.stop();
    },
  };
}

export interface Readyz {
  status: number;
  body: { status: string; checks: Record<string, { ok: boolean; detail?: string }> };
}

export async function readyz(replica: SpawnedHttpServer): Promise<Readyz> {
  const res = await fetch(`${new URL(replica.url).origin}/readyz`);
  return { status: res.status, body: (await res.json()) as Readyz['body'] };
}

/** Polls `check` every 50 ms until it holds or `timeoutMs` passes. */
export async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
