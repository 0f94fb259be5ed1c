/**
 * The deadlines of running calls, one timer per duration instead of one per call. Every call
 * runs under a deadline (MCP_TOOL_TIMEOUT_MS or the tool's own), and nearly every call ends
 * long before it: a `setTimeout` and `clearTimeout` per call is Node's timer bookkeeping (a
 * `Timeout` object, its async id, its place in a list) paid for nothing. Deadlines of one
 * duration expire in the order they were set, so each duration keeps its running deadlines in
 * a list in that order (a lane) with one timer, armed for the oldest: a call that ends unlinks
 * itself, and the timer, when it fires, expires what is due and re-arms for the next.
 *
 * A lane's timer keeps the process alive only while the lane holds a deadline (it is unref'd
 * when the lane empties), as a per-call timer did.
 */

/** What a deadline calls when it passes (the request's cancellation). */
export interface DeadlineOwner {
  deadlinePassed(timeoutMs: number): void;
}

/** A running deadline, in its lane until it passes or is cleared. */
export class Deadline {
  readonly owner: DeadlineOwner;
  /** When it passes, on `performance.now()`'s clock. */
  readonly at: number;
  readonly lane: Lane;
  prev: Deadline | undefined = undefined;
  next: Deadline | undefined = undefined;
  linked = true;

  constructor(owner: DeadlineOwner, at: number, lane: Lane) {
    this.owner = owner;
    this.at = at;
    this.lane = lane;
  }
}

/** The running deadlines of one duration, oldest first, and the one timer they share. */
class Lane {
  readonly ms: number;
  head: Deadline | undefined = undefined;
  tail: Deadline | undefined = undefined;
  #timer: NodeJS.Timeout | undefined = undefined;
  /** The time the timer was armed for: when it fires, at least this much time has passed. */
  #timerAt = 0;

  constructor(ms: number) {
    this.ms = ms;
  }

  add(deadline: Deadline): void {
    const tail = this.tail;
    if (tail === undefined) {
      this.head = deadline;
      // A timer armed for an older deadline fires no later than this one is due.
      if (this.#timer === undefined) this.#arm(deadline.at, deadline.at - performance.now());
      else this.#timer.ref();
    } else {
      tail.next = deadline;
      deadline.prev = tail;
    }
    this.tail = deadline;
  }

  remove(deadline: Deadline): void {
    if (!deadline.linked) return;
    deadline.linked = false;
    const { prev, next } = deadline;
    if (prev === undefined) this.head = next;
    else prev.next = next;
    if (next === undefined) this.tail = prev;
    else next.prev = prev;
    deadline.prev = undefined;
    deadline.next = undefined;
    // Left to fire (and find nothing due) rather than cleared: clearing and arming again is
    // the per-call bookkeeping this saves, when calls come one at a time.
    if (this.head === undefined) this.#timer?.unref();
  }

  #arm(at: number, delay: number): void {
    this.#timerAt = at;
    this.#timer = setTimeout(fire, Math.max(1, delay), this);
  }

  /** The timer fired: expire what is due, then arm for the oldest deadline left. */
  fired(): void {
    this.#timer = undefined;
    const now = Math.max(performance.now(), this.#timerAt);
    let head = this.head;
    while (head !== undefined && head.at <= now) {
      this.remove(head);
      head.owner.deadlinePassed(this.ms);
      head = this.head;
    }
    if (head !== undefined && this.#timer === undefined) this.#arm(head.at, head.at - now);
  }
}

/** The timer's callback: a plain function with its lane, not a closure per lane. */
function fire(lane: Lane): void {
  lane.fired();
}

/** One lane per duration; durations come from settings and tool definitions, a handful. */
const lanes = new Map<number, Lane>();

/**
 * Starts a deadline of `timeoutMs` for `owner`, which is told when it passes unless it is
 * cleared first.
 *
 * @example
 * const deadline = startDeadline(30_000, cancellation);
 * // ... the call ends
 * clearDeadline(deadline);
 */
export function startDeadline(timeoutMs: number, owner: DeadlineOwner): Deadline {
  let lane = lanes.get(timeoutMs);
  if (lane === undefined) {
    lane = new Lane(timeoutMs);
    lanes.set(timeoutMs, lane);
  }
  const deadline = new Deadline(owner, performance.now() + timeoutMs, lane);
  lane.add(deadline);
  return deadline;
}

/** Clears a deadline that has not passed; clearing it again, or after it passed, does nothing. */
export function clearDeadline(deadline: Deadline): void {
  deadline.lane.remove(deadline);
}
