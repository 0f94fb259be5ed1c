/**
 * Runs a handler under the request's abort signal with a deadline: on timeout the signal is
 * aborted (so a cooperative handler stops) and the caller gets a Timeout error at once.
 */
import { InternalCode, ToolkitError } from './errors.ts';

export async function withDeadline<T>(
  controller: AbortController,
  timeoutMs: number,
  run: () => Promise<T>,
): Promise<T> {
  if (controller.signal.aborted) throw abortError(controller.signal);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortError(controller.signal));
    controller.signal.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(() => {
      controller.abort(new ToolkitError(InternalCode.Timeout, `timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([run(), stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) controller.signal.removeEventListener('abort', onAbort);
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : new ToolkitError(InternalCode.Cancelled, 'the request was cancelled');
}
