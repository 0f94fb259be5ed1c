/**
 * The request's one cancellation (src/execution/cancellation.ts): the first reason kept, one
 * signal, the deadline's one timer, and its handling of handlers that return or throw without a
 * promise.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InternalCode, ToolkitError } from '../../src/base/errors.ts';
import { Cancellation } from '../../src/execution/cancellation.ts';

/** The timers this process has running (each deadline's is one of them). */
function timers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

/** `promise`, or a rejection once `ms` have passed, so a test never hangs on it. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe('Cancellation: the deadline', () => {
  test('a handler that returns a plain value resolves with it', async () => {
    assert.equal(await new Cancellation().withDeadline(1000, () => 42), 42);
  });

  test('a handler that throws without a promise rejects with its error, and its timer is cleared', async (t) => {
    // A fake clock: the 20 ms deadline is passed at once, no real waiting.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const boom = new Error('boom');
    const c = new Cancellation();
    await assert.rejects(
      c.withDeadline(20, () => {
        throw boom;
      }),
      (err) => err === boom,
    );
    // A timer left running would abort the request once it fired.
    t.mock.timers.tick(60);
    assert.equal(c.aborted, false);
  });

  test('an abort while the handler runs rejects at once with the reason', async () => {
    const c = new Cancellation();
    const running = c.withDeadline(10_000, () => new Promise(() => {}));
    const reason = new Error('the client went away');
    c.abort(reason);
    await assert.rejects(running, (err) => err === reason);
  });

  test('a deadline after an abort rejects at once with the first reason', async () => {
    const c = new Cancellation();
    const reason = new Error('cancelled');
    c.abort(reason);
    let ran = false;
    await assert.rejects(
      c.withDeadline(1000, () => {
        ran = true;
      }),
      (err) => err === reason,
    );
    assert.equal(ran, false);
  });
});

describe('Cancellation: one abort per request', () => {
  test('the first reason wins: later aborts change neither the reason nor the signal', () => {
    const early = new Cancellation();
    const signal = early.signal;
    let fired = 0;
    signal.addEventListener('abort', () => fired++);
    const first = new Error('timed out');
    early.abort(first);
    early.abort(new Error('cancelled'));
    assert.equal(early.aborted, true);
    assert.equal(early.abortReason, first);
    assert.equal(signal.reason, first);
    assert.equal(fired, 1);

    // A signal asked for only after the abort is the same one, already aborted with it.
    const late = new Cancellation();
    late.abort(first);
    late.abort(new Error('the client went away'));
    assert.equal(late.signal.aborted, true);
    assert.equal(late.signal.reason, first);
    assert.equal(late.signal, late.signal);
  });

  test('a deadline runs one timer, cleared when the handler settles and when the request is aborted', async () => {
    const before = timers();
    const settles = new Cancellation();
    const done = settles.withDeadline(60_000, () => new Promise((r) => setImmediate(r, 'ok')));
    assert.equal(timers(), before + 1);
    assert.equal(await done, 'ok');
    assert.equal(timers(), before);

    const aborted = new Cancellation();
    const hanging = aborted.withDeadline(60_000, () => new Promise(() => {}));
    assert.equal(timers(), before + 1);
    aborted.abort(new Error('cancelled'));
    assert.equal(timers(), before, 'the abort cleared the deadline timer at once');
    await assert.rejects(hanging, /cancelled/);
  });

  test('on timeout the request is aborted with a Timeout error, which the deadline rejects with', async () => {
    const c = new Cancellation();
    const signal = c.signal;
    await assert.rejects(
      within(
        c.withDeadline(5, () => new Promise(() => {})),
        5000,
      ),
      (err) => err instanceof ToolkitError && err.code === InternalCode.Timeout,
    );
    assert.equal(c.abortReason instanceof ToolkitError && c.abortReason.code, InternalCode.Timeout);
    assert.equal(signal.reason, c.abortReason);
    // A cancellation arriving after the timeout does not replace it.
    c.abort(new Error('cancelled'));
    assert.equal((c.abortReason as ToolkitError).code, InternalCode.Timeout);
  });

  test('a reason that is not an Error rejects the deadline with a Cancelled error', async () => {
    const c = new Cancellation();
    const running = c.withDeadline(60_000, () => new Promise(() => {}));
    c.abort('user');
    await assert.rejects(
      running,
      (err) => err instanceof ToolkitError && err.code === InternalCode.Cancelled,
    );
    assert.equal(c.abortReason, 'user');
  });

  test('a deadline started while another runs leaves the first to settle with its own handler', async () => {
    const c = new Cancellation();
    let finishFirst!: (value: string) => void;
    const first = c.withDeadline(60_000, () => new Promise<string>((r) => (finishFirst = r)));
    const second = c.withDeadline(60_000, () => new Promise<string>(() => {}));
    finishFirst('first');
    assert.equal(await within(first, 5000), 'first');
    // The second is the request's running deadline: an abort fails it at once.
    c.abort(new Error('cancelled'));
    await assert.rejects(within(second, 5000), /cancelled/);
  });
});

describe('deadline lanes: one timer per duration', () => {
  test('a hundred calls running under one duration hold one timer, none once they end', async () => {
    const before = timers();
    const finish: Array<() => void> = [];
    const running = Array.from({ length: 100 }, () =>
      new Cancellation().withDeadline(45_000, () => new Promise<void>((r) => finish.push(r))),
    );
    assert.equal(timers(), before + 1);
    for (const f of finish) f();
    await Promise.all(running);
    assert.equal(timers(), before);
  });

  test('deadlines of one duration pass in the order they were set; one that ended never passes', async () => {
    const passed: string[] = [];
    const start = (name: string, c = new Cancellation()) =>
      c
        .withDeadline(30, () => new Promise<string>(() => {}))
        .catch((err: ToolkitError) => {
          passed.push(`${name}:${err.code}`);
        });
    const a = start('a');
    const ending = new Cancellation();
    let endB!: (v: string) => void;
    const b = ending.withDeadline(30, () => new Promise<string>((r) => (endB = r)));
    const c = start('c');
    endB('b ended');
    assert.equal(await within(b, 5000), 'b ended');
    await within(Promise.all([a, c]), 5000);
    assert.deepEqual(passed, [`a:${InternalCode.Timeout}`, `c:${InternalCode.Timeout}`]);
    assert.equal(ending.aborted, false);
  });

  test("a deadline set after the lane's timer was armed for one that ended still passes", async () => {
    const first = new Cancellation();
    await first.withDeadline(40, () => 'ended at once');
    // The lane's timer is still armed for the first deadline; the second is due later.
    const second = new Cancellation();
    await assert.rejects(
      within(
        second.withDeadline(40, () => new Promise(() => {})),
        5000,
      ),
      (err) => err instanceof ToolkitError && err.code === InternalCode.Timeout,
    );
  });
});
