/**
 * The checks `/readyz` reports, wired where the server is assembled: the rate-limit store,
 * the shared state (Redis), the OAuth issuer's keys, and each plugin's own `doctor` checks.
 * The HTTP transport adds shutdown and answers 503 when one fails.
 */
import type { Authenticator } from './auth/types.ts';
import type { LoadedPlugin } from './plugin.ts';
import type { RateLimiter } from './ratelimit/limiter.ts';
import type { CheckResult } from './transports/deps.ts';

/** How long a plugin's doctor result answers /readyz before its checks run again. */
const PLUGIN_CHECK_TTL_MS = 10_000;

export interface ReadinessParts {
  readonly limiter?: RateLimiter | undefined;
  /** The shared state's health (src/scale/), with several replicas. */
  readonly shared?: { health(): CheckResult } | undefined;
  readonly auth?: Authenticator | undefined;
  readonly plugins: readonly LoadedPlugin[];
}

/**
 * @example
 * const readiness = createReadiness({ limiter, auth, plugins });
 * (await readiness())['plugin:filesystem']; // { ok: true }
 */
export function createReadiness(parts: ReadinessParts): () => Promise<Record<string, CheckResult>> {
  let cached: { at: number; checks: Record<string, CheckResult> } | undefined;
  /**
   * Each plugin's own `doctor` checks (the filesystem root still there and writable, say), run
   * at most every 10 s so a busy probe does not turn into a disk or network load.
   */
  const pluginChecks = async (): Promise<Record<string, CheckResult>> => {
    if (cached && Date.now() - cached.at < PLUGIN_CHECK_TTL_MS) return cached.checks;
    const checks: Record<string, CheckResult> = {};
    for (const { definition, settings } of parts.plugins) {
      if (!definition.doctor) continue;
      try {
        const failed = (await definition.doctor(settings)).filter((c) => !c.ok);
        checks[`plugin:${definition.name}`] =
          failed.length === 0
            ? { ok: true }
            : {
                ok: false,
                detail: failed.map((c) => (c.detail ? `${c.name}: ${c.detail}` : c.name)).join('; '),
              };
      } catch (err) {
        checks[`plugin:${definition.name}`] = { ok: false, detail: (err as Error).message };
      }
    }
    cached = { at: Date.now(), checks };
    return checks;
  };
  return async () => {
    const checks: Record<string, CheckResult> = {};
    const { limiter, shared, auth } = parts;
    if (limiter) {
      const h = limiter.health();
      checks.rateLimit = h.degraded ? { ok: h.ok, detail: h.degraded } : { ok: h.ok };
    }
    if (shared) checks.sharedState = shared.health();
    if (auth) {
      try {
        await auth.ready();
        checks.auth = { ok: true };
      } catch (err) {
        checks.auth = { ok: false, detail: (err as Error).message };
      }
    }
    return Object.assign(checks, await pluginChecks());
  };
}
