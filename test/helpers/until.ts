/**
 * `until(predicate, options)`: waits for the event a test is really waiting for (a message
 * received, a log line, a count reached, a process gone) instead of sleeping a fixed time and
 * hoping. The predicate is polled every `intervalMs` (sync or async); the first truthy value it
 * returns is what `until` resolves with. After `timeoutMs` it rejects with `message`, the thing
 * that never happened, plus the last error the predicate threw, if any.
 *
 * @example
 * await until(() => proc.stderr().includes('listening'), { message: 'the server never said it was listening' });
 * const line = await until(() => lines.find((l) => l.includes('"id":3')), { message: 'no answer to id 3' });
 */
export interface UntilOptions {
  /** Give up after this long. Default 5000 ms (generous: the machine may be loaded). */
  readonly timeoutMs?: number;
  /** How often the predicate is polled. Default 10 ms. */
  readonly intervalMs?: number;
  /** What never happened, for the error: "the second session never appeared". */
  readonly message?: string;
}

/** What a predicate's truthy value can be. */
export type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

export async function until<T>(
  predicate: () => T | Promise<T>,
  options: UntilOptions = {},
): Promise<Truthy<T>> {
  const { timeoutMs = 5000, intervalMs = 10, message = 'the condition never held' } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await predicate();
      if (value !== undefined && value !== null && value !== false && value !== 0 && value !== '') {
        return value as Truthy<T>;
      }
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError === undefined ? '' : ` (last error: ${String(lastError)})`;
      throw new Error(`${message}: not within ${timeoutMs} ms${cause}`, { cause: lastError });
    }
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(intervalMs, Math.max(1, deadline - Date.now()))),
    );
  }
}

/**
 * A fetch for an MCP client that notes when its standalone GET (notification) stream has been
 * answered: the server has attached the stream by then, so a notification sent afterwards
 * reaches the client. `until(stream.opened)` waits for it.
 */
export function watchNotificationStream(): { fetch: typeof fetch; opened: () => boolean } {
  let open = false;
  return {
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if (init?.method === 'GET' && res.ok) open = true;
      return res;
    },
    opened: () => open,
  };
}
