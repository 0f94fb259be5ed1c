/**
 * Loaded into every test file's process by scripts/test.ts (`--import`): once the file's tests
 * and hooks have ended, the process has `FILE_EXIT_GRACE_MS` to exit by itself. A file that
 * leaves a server, socket, child or timer open (a failed test skipping its cleanup, say) would
 * otherwise keep its process, and the lane, waiting for ever; after the grace it is failed,
 * naming what is still open, and ends.
 *
 * Not `node --test-force-exit`: with files run at once it exits a file's process before all
 * of its verdicts have reached the runner, which then reports fewer tests than ran, and a green
 * lane (nodejs/node#64833).
 */
import { after } from 'node:test';

/**
 * Generous for a loaded machine: the file's own `after` hooks may still be stopping servers.
 * `MCP_TEST_FILE_EXIT_GRACE_MS` sets another (the watchdog's own test).
 */
export const FILE_EXIT_GRACE_MS = Number(process.env.MCP_TEST_FILE_EXIT_GRACE_MS) || 60_000;

after(() => {
  const timer = setTimeout(() => {
    const open = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
    process.stderr.write(
      `${process.argv[1] ?? 'a test file'}: still running ${FILE_EXIT_GRACE_MS / 1000} s after its tests ended; ` +
        `open: ${open.join(', ') || 'nothing named'}. A test left it open: close it in its cleanup (t.after).\n`,
    );
    process.exit(1);
  }, FILE_EXIT_GRACE_MS);
  // The timer alone keeps nothing running: a file that ends cleanly exits at once.
  timer.unref();
});
