/**
 * What `/readyz` reports, computed once for every HTTP transport: the server's checks (the
 * rate-limit store, Redis, the OAuth issuer's keys, each plugin's `dependency` checks) and,
 * once shutdown has begun, `shutdown`. The standalone server answers it at `/readyz`; the
 * Fastify plugin hands it to the application (`app.mcpToolkit.readiness()`), whose own
 * probe decides what to do with it.
 */
import type { CheckResult, HttpDeps } from '../deps.ts';

/** The readiness of the server, as `/readyz` sends it (with `ready` for the status code). */
export interface ReadinessReport {
  /** Every check passed: `/readyz` answers 200, else 503. */
  readonly ready: boolean;
  /** `ready`, `degraded` (ready, a check reporting a detail, as a rate limit failing open does) or `not_ready`. */
  readonly status: 'ready' | 'degraded' | 'not_ready';
  /** Each check by name: `{ ok, detail? }`. */
  readonly checks: Readonly<Record<string, CheckResult>>;
}

/**
 * @example
 * const report = await readinessReport(server, false);
 * reply.code(report.ready ? 200 : 503).send({ status: report.status, checks: report.checks });
 */
export async function readinessReport(
  server: Pick<HttpDeps, 'readiness'>,
  closing: boolean | string,
): Promise<ReadinessReport> {
  const checks: Record<string, CheckResult> = {};
  // A string says which stage: draining (still serving), or shutting down.
  if (closing) checks.shutdown = { ok: false, detail: closing === true ? 'shutting down' : closing };
  Object.assign(checks, await server.readiness());
  const ready = Object.values(checks).every((c) => c.ok);
  const degraded = Object.values(checks).some((c) => c.detail !== undefined);
  return { ready, status: ready ? (degraded ? 'degraded' : 'ready') : 'not_ready', checks };
}
