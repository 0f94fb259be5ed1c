/**
 * A server that stops during the generated tests (its process exits, its endpoint goes away, it
 * answers nothing): the test during which it stopped fails once, at MUST (`test.server-stopped`,
 * with the last request sent); the tests after it are not run, unless the target is a command
 * the kit can start again (a new process, the handshake again), at most a few times.
 */

import type { ProbeClient } from '../client/probe-client.ts';
import { RESTARTED } from '../conformance/protocol-rules.ts';
import type { CaseOutcome } from './calls.ts';
import { LiveTestFailure } from './calls.ts';

/** How often a stdio server that stopped is started again for the tests after it. */
const MAX_RESTARTS = 2;
const NOT_RUN = 'not run: the server stopped (see the test that failed with server.stopped)';

/**
 * Wraps each case's run: restart before it when it can, report a stop once, skip after it. The
 * tool whose call stopped the server is not called again (its other tests are not run), so one
 * crash of one tool is one failure.
 */
export function guardStops(
  client: ProbeClient,
): (name: string, run: () => Promise<CaseOutcome>) => Promise<CaseOutcome> {
  let restarts = 0;
  const crashed = new Set<string>();
  let restarting: Promise<boolean> | undefined;
  /** Stops seen and stops reported: one failure per stop, whatever ran beside it. */
  let stops = 0;
  let reported = 0;
  const heard = client.onStopped;
  client.onStopped = (why) => {
    stops++;
    heard?.(why);
  };
  const ensureUp = async (): Promise<boolean> => {
    if (client.stopped === undefined) return true;
    if (restarting === undefined) {
      if (restarts >= MAX_RESTARTS) return false;
      restarts++;
      restarting = client.restart().finally(() => {
        restarting = undefined;
      });
    }
    return restarting;
  };
  return async (name, run) => {
    for (const tool of crashed)
      if (name.startsWith(`test_${tool}_`))
        return {
          skipped: `not run: a call of ${tool} stopped the server (see the test that failed with server.stopped)`,
        };
    if (!(await ensureUp())) return { skipped: NOT_RUN };
    const stop = async () => {
      const why = client.stopped;
      if (why === undefined) return;
      if (reported === stops) return { skipped: NOT_RUN } as CaseOutcome;
      reported = stops;
      const tool = /^tools\/call \{"name":"([^"]+)"/.exec(client.lastSent)?.[1];
      if (tool !== undefined) crashed.add(tool);
      // Started again at once, so the finding says so as check's server.stopped does.
      const again = client.reopen !== undefined && (await ensureUp());
      throw new LiveTestFailure(again ? `${why}\n${RESTARTED}` : why, 'MUST', 'test.server-stopped');
    };
    let out: CaseOutcome;
    try {
      out = await run();
    } catch (err) {
      await stop();
      throw err;
    }
    return (await stop()) ?? out;
  };
}
