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
 * controller per request unless a handler asks for the signal, and no timer of its own: its
 * deadline waits in the lane of its duration (deadline-lanes.ts), whose one timer serves every
 * running call.
 */
import { InternalCode, ToolkitError } from '../base/errors.ts';
import { clearDeadline, type Deadline, type DeadlineOwner, startDeadline } from './deadline-lanes.ts';

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

export class Cancellation implements Cancellable, DeadlineOwner {
  // Made per request: fields `private`, not `#private` (V8 defines each `#` field through a
  // keyed store call on every construction: docs/performance.md).
  private _aborted = false;
  private _reason: unknown = undefined;
  private _controller: AbortController | undefined = undefined;
  // The running deadline: its place in its lane, and how to fail it when the request is
  // aborted. A request's deadlines run one after the other (a handler's input rounds, a task's
  // rounds); one started while another runs takes these over, and the earlier one settles with
  // its run.
  private _deadline: Deadline | undefined = undefined;
  private _fail: ((error: unknown) => void) | undefined = undefined;

  get signal(): AbortSignal {
    if (this._controller === undefined) {
      this._controller = new AbortController();
      if (this._aborted) this._controller.abort(this._reason);
    }
    return this._controller.signal;
  }

  get aborted(): boolean {
    return this._aborted;
  }

  get abortReason(): unknown {
    return this._reason;
  }

  /** Aborts the request: the handler's signal fires and a waiting deadline rejects. The first reason wins. */
  abort(reason: unknown): void {
    if (this._aborted) return;
    this._aborted = true;
    this._reason = reason;
    const fail = this._fail;
    this._endDeadline();
    this._controller?.abort(reason);
    fail?.(abortError(reason));
  }

  /**
   * Runs `run` with a deadline: after `timeoutMs` the request is aborted (so a cooperative
   * handler stops, through its signal) and the promise rejects with a Timeout error at once;
   * any other abort rejects at once the same way, with its reason. `run` may return a value or
   * a promise, and a synchronous throw rejects like a rejection.
   */
  withDeadline<T>(timeoutMs: number, run: () => T | Promise<T>): Promise<T> {
    if (this._aborted) return Promise.reject(abortError(this._reason));
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    const deadline = startDeadline(timeoutMs, this);
    this._deadline = deadline;
    this._fail = reject;
    let running: Promise<T>;
    try {
      // Promise.resolve hands a native promise back as it is (no extra turn).
      running = Promise.resolve(run());
    } catch (error) {
      running = Promise.reject(error);
    }
    // Each deadline settles with its own run (a no-op once an abort rejected it) and leaves
    // its lane, even if another deadline started on this request meanwhile.
    running.then(
      (value) => {
        this._settled(deadline, reject);
        resolve(value);
      },
      (error: unknown) => {
        this._settled(deadline, reject);
        reject(error);
      },
    );
    return promise;
  }

  /** The running deadline passed (its lane's timer): the request is aborted with a Timeout. */
  deadlinePassed(timeoutMs: number): void {
    this.abort(new ToolkitError(InternalCode.Timeout, `timed out after ${timeoutMs} ms`));
  }

  private _settled(deadline: Deadline, fail: (error: unknown) => void): void {
    clearDeadline(deadline);
    if (this._fail === fail) this._endDeadline();
  }

  private _endDeadline(): void {
    if (this._deadline !== undefined) clearDeadline(this._deadline);
    this._deadline = undefined;
    this._fail = undefined;
  }
}

function abortError(reason: unknown): Error {
  return reason instanceof Error
    ? reason
    : new ToolkitError(InternalCode.Cancelled, 'the request was cancelled');
}
