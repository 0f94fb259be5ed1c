/**
 * The one cancellation mechanism of a request. Every way a request ends early calls
 * `abort(reason)`: its deadline's timer, the client's notifications/cancelled, the client going
 * away (an HTTP connection closed, stdin ended), a task cancelled, the server stopping. The
 * first reason is the one kept, whatever comes after it, and an abort reaches each of the two
 * things that wait on a request once: the handler's AbortSignal (created on first use: most
 * handlers never look at it) and the running deadline, which rejects at once whether or not
 * the handler stops.
 *
 * The request context (src/protocol/request-context.ts) holds one, as `ctx.cancellation`, and
 * hands its signal and abort on, so a request has one abort state: no listener, hook or
 * controller per request unless a handler asks for the signal, and one timer per deadline,
 * which runs on every call.
 */
import { InternalCode, ToolkitError } from '../base/errors.ts';

/** What the call wrapper needs of a request's cancellation. */
export interface Cancellable {
  /** Aborted when the client cancels, the call times out, or the client goes away. */
  readonly signal: AbortSignal;
  /** True once the request was aborted. */
  readonly aborted: boolean;
  /** Why it was aborted (the first reason given); undefined while it runs. */
  readonly abortReason: unknown;
  abort(reason: unknown): void;
  withDeadline<T>(timeoutMs: number, run: () => T | Promise<T>): Promise<T>;
}

export class Cancellation implements Cancellable {
  #aborted = false;
  #reason: unknown = undefined;
  #controller: AbortController | undefined = undefined;
  // The running deadline: its timer, and how to fail it when the request is aborted. A
  // request's deadlines run one after the other (a handler's input rounds, a task's rounds);
  // one started while another runs takes these over, and the earlier one settles with its run.
  #timer: NodeJS.Timeout | undefined = undefined;
  #fail: ((error: unknown) => void) | undefined = undefined;

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  get abortReason(): unknown {
    return this.#reason;
  }

  /** Aborts the request: the handler's signal fires and a waiting deadline rejects. The first reason wins. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const fail = this.#fail;
    this.#endDeadline();
    this.#controller?.abort(reason);
    fail?.(abortError(reason));
  }

  /**
   * Runs `run` with a deadline: after `timeoutMs` the request is aborted (so a cooperative
   * handler stops, through its signal) and the promise rejects with a Timeout error at once;
   * any other abort rejects at once the same way, with its reason. `run` may return a value or
   * a promise, and a synchronous throw rejects like a rejection.
   */
  withDeadline<T>(timeoutMs: number, run: () => T | Promise<T>): Promise<T> {
    if (this.#aborted) return Promise.reject(abortError(this.#reason));
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    const timer = setTimeout(timedOut, timeoutMs, this, timeoutMs);
    this.#timer = timer;
    this.#fail = reject;
    let running: Promise<T>;
    try {
      // Promise.resolve hands a native promise back as it is (no extra turn).
      running = Promise.resolve(run());
    } catch (error) {
      running = Promise.reject(error);
    }
    // Each deadline settles with its own run (a no-op once an abort rejected it) and clears
    // its own timer, even if another deadline started on this request meanwhile.
    running.then(
      (value) => {
        this.#settled(timer, reject);
        resolve(value);
      },
      (error: unknown) => {
        this.#settled(timer, reject);
        reject(error);
      },
    );
    return promise;
  }

  #settled(timer: NodeJS.Timeout, fail: (error: unknown) => void): void {
    clearTimeout(timer);
    if (this.#fail === fail) this.#endDeadline();
  }

  #endDeadline(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#fail = undefined;
  }
}

/** The deadline's timer: a plain function with its arguments, not a closure per call. */
function timedOut(request: Cancellation, timeoutMs: number): void {
  request.abort(new ToolkitError(InternalCode.Timeout, `timed out after ${timeoutMs} ms`));
}

function abortError(reason: unknown): Error {
  return reason instanceof Error
    ? reason
    : new ToolkitError(InternalCode.Cancelled, 'the request was cancelled');
}
