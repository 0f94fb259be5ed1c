/**
 * How reachable the shared Redis is, as the scale-out pieces see it (a request meanwhile gets
 * `Refusal.storeUnavailable`, src/base/refusals.ts). Connection state alone misses a hung
 * server (the socket stays open and commands time out), so failed and successful commands
 * count too.
 */
import type { Redis } from 'ioredis';
import { explainRedisError } from './connection.ts';

/**
 * Runs one store operation and tells `health` how it went; the error is rethrown, or mapped
 * when `mapError` is given (the session store turns it into the 503 the client sees).
 */
export async function recorded<T>(
  health: StoreHealth | undefined,
  run: () => Promise<T>,
  mapError?: (err: unknown) => Error,
): Promise<T> {
  try {
    const out = await run();
    health?.succeeded();
    return out;
  } catch (err) {
    health?.failed(err);
    throw mapError ? mapError(err) : err;
  }
}

export interface StoreHealth {
  /** A command failed (connection refused, closed or timed out). */
  failed(err: unknown): void;
  /** A command succeeded. */
  succeeded(): void;
  /** Undefined when all is well; else what is wrong. */
  problem(): string | undefined;
  /** Stops listening to the clients' connection events. */
  stop(): void;
}

/**
 * Tracks the command client and the subscriber connection.
 *
 * @example
 * const health = createStoreHealth([redis, subscriber], (down) => logger.warn({ down }, 'Redis'));
 */
export function createStoreHealth(
  clients: readonly Redis[],
  onChange?: (problem: string | undefined) => void,
): StoreHealth {
  let lastError: string | undefined;
  /** Why the connection last failed, as explainRedisError says it (a password, a certificate). */
  let connectionError: string | undefined;
  let reported: string | undefined;
  const problem = () => {
    const down = clients.some((c) => c.status !== 'ready');
    if (down) return `Redis unreachable (connection down${connectionError ? `: ${connectionError}` : ''})`;
    return lastError === undefined ? undefined : `Redis unreachable (${lastError})`;
  };
  const report = () => {
    const now = problem();
    if (now !== reported) {
      reported = now;
      onChange?.(now);
    }
  };
  const onConnection = () => {
    // A fresh connection clears an older command failure: the next command will tell.
    if (clients.every((c) => c.status === 'ready')) {
      lastError = undefined;
      connectionError = undefined;
    }
    report();
  };
  const onError = (err: unknown) => {
    connectionError = explainRedisError(err).message;
  };
  for (const c of clients) {
    for (const event of ['ready', 'close', 'end']) c.on(event, onConnection);
    c.on('error', onError);
  }
  return {
    failed(err) {
      lastError = err instanceof Error ? err.message : String(err);
      report();
    },
    succeeded() {
      if (lastError === undefined) return;
      lastError = undefined;
      report();
    },
    problem() {
      const now = problem();
      if (now !== reported) report();
      return now;
    },
    stop() {
      for (const c of clients) {
        for (const event of ['ready', 'close', 'end']) c.off(event, onConnection);
        c.off('error', onError);
      }
    },
  };
}
