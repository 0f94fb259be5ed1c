/**
 * Runs a handler with a deadline: on timeout the request is aborted (so a cooperative handler
 * stops, through its signal) and the caller gets a Timeout error at once, whether or not the
 * handler stops. Any other abort (cancellation, client gone) rejects at once the same way.
 * This runs on every call, so it uses one timer and one hook field, no listeners.
 */
import { InternalCode, ToolkitError } from '../base/errors.ts';

/** What a deadline needs from the request (RequestContext). */
export interface Abortable {
  readonly aborted: boolean;
  readonly abortReason: unknown;
  abort(reason: unknown): void;
  /** One hook at a time: deadlines on one request run one after the other. */
  onAbort: ((reason: unknown) => void) | undefined;
}

/** `run` may return a value or a promise, and a synchronous throw rejects like a rejection. */
export function withDeadline<T>(
  request: Abortable,
  timeoutMs: number,
  run: () => T | Promise<T>,
): Promise<T> {
  if (request.aborted) return Promise.reject(abortError(request.abortReason));
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      request.abort(new ToolkitError(InternalCode.Timeout, `timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = () => {
      settled = true;
      clearTimeout(timer);
      request.onAbort = undefined;
    };
    request.onAbort = (reason) => {
      if (settled) return;
      finish();
      reject(abortError(reason));
    };
    let running: Promise<T>;
    try {
      // Promise.resolve hands a native promise back as it is (no extra turn).
      running = Promise.resolve(run());
    } catch (error) {
      running = Promise.reject(error);
    }
    running.then(
      (value) => {
        if (settled) return;
        finish();
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        finish();
        reject(error);
      },
    );
  });
}

function abortError(reason: unknown): Error {
  return reason instanceof Error
    ? reason
    : new ToolkitError(InternalCode.Cancelled, 'the request was cancelled');
}
