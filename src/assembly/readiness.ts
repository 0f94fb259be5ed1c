/**
 * The checks `/readyz` reports, wired where the server is assembled: the rate-limit store,
 * the shared state (Redis), the OAuth issuer's keys, and each plugin's own `doctor` checks of
 * the `dependency` kind (src/plugin/define.ts, DoctorCheckKind). The plugins' `config` checks are
 * read once, at start-up (`pluginStartUpProblems`): a setting that can never work stops the
 * server instead of holding it not-ready forever. The HTTP transport adds shutdown and
 * answers 503 when one fails.
 */
import type { Authenticator } from '../auth/types.ts';
import type { DoctorCheck, LoadedPlugin } from '../plugin/define.ts';
import type { RateLimiter } from '../ratelimit/limiter.ts';
import type { CheckResult } from '../transports/deps.ts';

/** How long a plugin's doctor result answers /readyz before its checks run again. */
const PLUGIN_CHECK_TTL_MS = 10_000;

/** One run of every plugin's `doctor`: by plugin name, its checks or the error it threw. */
export interface PluginCheckRun {
  readonly at: number;
  readonly results: ReadonlyMap<string, readonly DoctorCheck[] | Error>;
}

/**
 * Runs each plugin's `doctor` (all at once, so start-up waits for the slowest, not the sum).
 *
 * @example
 * const run = await runPluginChecks(plugins);
 */
export async function runPluginChecks(plugins: readonly LoadedPlugin[]): Promise<PluginCheckRun> {
  const entries = await Promise.all(
    plugins.flatMap(({ definition, settings }) =>
      definition.doctor
        ? [
            (async (): Promise<[string, readonly DoctorCheck[] | Error]> => {
              try {
                return [definition.name, (await definition.doctor?.(settings)) ?? []];
              } catch (err) {
                return [definition.name, err instanceof Error ? err : new Error(String(err))];
              }
            })(),
          ]
        : [],
    ),
  );
  return { at: Date.now(), results: new Map(entries) };
}

/** A check as `mcp-toolkit doctor` prints it: `plugin openapi: name (detail)`. */
const shown = (plugin: string, c: DoctorCheck) =>
  `plugin ${plugin}: ${c.name}${c.detail ? ` (${c.detail})` : ''}`;

/**
 * The failed `config` checks of a run, one line each as `mcp-toolkit doctor` prints them;
 * empty when start-up may go on.
 *
 * @example
 * const problems = pluginStartUpProblems(await runPluginChecks(plugins));
 */
export function pluginStartUpProblems(run: PluginCheckRun): string[] {
  const problems: string[] = [];
  for (const [plugin, result] of run.results) {
    if (result instanceof Error) continue;
    for (const c of result) if (!c.ok && c.kind === 'config') problems.push(shown(plugin, c));
  }
  return problems;
}

/** A run as /readyz shows it: per plugin, its failed `dependency` checks (or what it threw). */
function readinessOf(run: PluginCheckRun): Record<string, CheckResult> {
  const checks: Record<string, CheckResult> = {};
  for (const [plugin, result] of run.results) {
    if (result instanceof Error) {
      checks[`plugin:${plugin}`] = { ok: false, detail: result.message };
      continue;
    }
    const failed = result.filter((c) => !c.ok && (c.kind ?? 'dependency') === 'dependency');
    checks[`plugin:${plugin}`] =
      failed.length === 0
        ? { ok: true }
        : {
            ok: false,
            detail: failed.map((c) => (c.detail ? `${c.name}: ${c.detail}` : c.name)).join('; '),
          };
  }
  return checks;
}

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
   * Each plugin's own `dependency` checks (an upstream API answering, say), run at most every
   * 10 s so a busy probe does not turn into a disk or network load.
   */
  const pluginChecks = async (): Promise<Record<string, CheckResult>> => {
    if (cached && Date.now() - cached.at < PLUGIN_CHECK_TTL_MS) return cached.checks;
    const run = await runPluginChecks(parts.plugins);
    cached = { at: run.at, checks: readinessOf(run) };
    return cached.checks;
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
