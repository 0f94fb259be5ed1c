/**
 * Progress heartbeats: while a tool runs and its request carried a progressToken, a progress
 * notification goes out every `everyMs` in which the handler sent none itself, so a client
 * that resets its request timeout on progress (`resetTimeoutOnProgress` in the official
 * SDKs) keeps waiting for a long call instead of failing it at 60 s with -32001.
 *
 * The specification says progress MUST increase with each notification (2025-11-25,
 * utilities/progress), so a heartbeat repeats the last value plus a millionth: invisible in
 * any rounded display, and below the handler's next step.
 */
import type { JsonObject } from '../base/jsonrpc.ts';

/** What a heartbeat needs of the call (the request context). */
export interface Beating {
  readonly meta: JsonObject;
  readonly aborted: boolean;
  /** When progress was last sent (ms since the epoch), and its value. */
  readonly lastProgressAt: number;
  readonly lastProgress: number;
  progress(progress: number, total?: number, message?: string): Promise<void>;
}

const STEP = 1e-6;
const MESSAGE = 'still working';

/**
 * Starts the heartbeat of one call; returns the function that stops it, or undefined when
 * there is nothing to do (no interval, or no progressToken to report against).
 *
 * @example
 * const stop = startHeartbeat(ctx, 5000);
 * try { return await handler(); } finally { stop?.(); }
 */
export function startHeartbeat(ctx: Beating, everyMs: number): (() => void) | undefined {
  if (!(everyMs > 0) || ctx.meta.progressToken === undefined) return undefined;
  let since = Date.now();
  const timer = setInterval(() => {
    // Quiet intervals only: progress the handler sent since the last tick counts.
    const sentMeanwhile = ctx.lastProgressAt > since;
    if (!ctx.aborted && !sentMeanwhile) void ctx.progress(ctx.lastProgress + STEP, undefined, MESSAGE);
    since = Date.now();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
