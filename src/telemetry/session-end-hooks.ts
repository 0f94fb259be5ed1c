/**
 * The plugins' `app.onSessionEnd` hooks, run where every end of a 2025-wire session is
 * already reported: `Telemetry.sessionEnded` (HTTP DELETE, the stdio connection closed, idle
 * expiry of the in-memory store). The server wraps its telemetry with them only when a plugin
 * registered one, so a server without such a plugin keeps its telemetry object as it is.
 */
import type { Logger } from 'pino';
import type { Telemetry } from './tracing.ts';

export interface SessionEndHook {
  readonly plugin: string;
  readonly fn: (sessionId: string) => void;
}

/**
 * `telemetry` whose `sessionEnded` also runs the plugins' hooks (one that throws is logged).
 *
 * @example
 * const telemetry = withSessionEndHooks(base, [{ plugin: 'proxy', fn: (id) => pool.end(id) }], logger);
 */
export function withSessionEndHooks(
  telemetry: Telemetry,
  hooks: readonly SessionEndHook[],
  logger: Logger,
): Telemetry {
  return {
    get enabled() {
      return telemetry.enabled;
    },
    startRequestSpan: (info) => telemetry.startRequestSpan(info),
    startRouteSpan: (info) => telemetry.startRouteSpan(info),
    recordRefusal: (info) => telemetry.recordRefusal(info),
    countRefusal: (status, reason) => telemetry.countRefusal(status, reason),
    sessionStarted: (info) => telemetry.sessionStarted(info),
    sessionEnded: (id) => {
      telemetry.sessionEnded(id);
      for (const { plugin, fn } of hooks) {
        try {
          fn(id);
        } catch (err) {
          logger.error({ plugin, err }, `plugin "${plugin}": onSessionEnd failed`);
        }
      }
    },
    flush: (timeoutMs) => telemetry.flush(timeoutMs),
    shutdown: (timeoutMs) => telemetry.shutdown(timeoutMs),
  };
}
