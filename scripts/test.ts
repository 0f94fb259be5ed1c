/**
 * The test runner's two lanes. `npm test` runs the unit and in-process tests, the ones to run
 * while changing code (about 2 minutes on two quiet cores; slower on a busy machine); `npm run test:all` adds the slow lane:
 * fuzzing, end-to-end runs of real processes and clients, browsers, packing and installing the
 * package, the built container image, fresh clones, benchmark harnesses, third-party servers
 * and the type check of every code block in the docs. CI runs both.
 *
 *   node scripts/test.ts                 the quick lane
 *   node scripts/test.ts --all           both lanes
 *   node scripts/test.ts --slow          the slow lane only
 *   node scripts/test.ts test/auth       only the test files under these paths (either lane)
 *
 * Anything after `--` goes to `node --test` as it is (e.g. `-- --test-reporter=tap`).
 */
import { spawnSync } from 'node:child_process';
import { globSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Ends a test file's process that stays up after its tests (scripts/test-file-watchdog.ts). */
const WATCHDOG = path.join(ROOT, 'scripts', 'test-file-watchdog.ts');
/** A corpus server's own packages (node_modules under test/testing/corpus) hold test files of theirs. */
const NOT_OURS = ['**/node_modules/**'];

/**
 * The slow lane: folders and files whose tests start whole servers, clients, browsers, builds
 * or installs and take seconds each. A file matches when its path starts with one of these.
 */
export const SLOW: readonly string[] = [
  'test/fuzz/',
  'test/e2e/',
  'test/browser/',
  'test/bench/',
  'test/deploy/image',
  'test/cli/fresh-clone.test.ts',
  'test/cli/npx.test.ts',
  'test/cli/npm-start.test.ts',
  'test/cli/proxy-e2e.test.ts',
  'test/testing/pack.test.ts',
  'test/testing/tarball.test.ts',
  'test/testing/third-party.test.ts',
  'test/testing/third-party-frameworks.test.ts',
  'test/testing/own-servers.test.ts',
  'test/testing/client-capabilities.test.ts',
  'test/docs/code-blocks.test.ts',
  'test/scale/replicas.test.ts',
  'test/scale/failover.test.ts',
  'test/scale/redis-tls.test.ts',
  'test/scale/topologies.test.ts',
  'test/scale/cluster-failover.test.ts',
  'test/scale/sentinel-reconnect.test.ts',
  'test/scale/soak.test.ts',
  'test/scale/standalone-stream.test.ts',
  'test/tasks/replicas.test.ts',
  'test/tasks/lease-outage.test.ts',
  'test/tasks/drain.test.ts',
  'test/examples/',
  'test/plugins/proxy/',
  'test/testing/process-hygiene.test.ts',
  'test/testing/server-stops.test.ts',
  'test/testing/cli.test.ts',
  'test/testing/refusals.test.ts',
  'test/cli/init.test.ts',
  'test/cli/bundle.test.ts',
  'test/transports/rollout.test.ts',
  'test/transports/drain-cutoff.test.ts',
  'test/transports/runtimes.test.ts',
  'test/types/',
  'test/auth/oauth-proxy/flow.test.ts',
  'test/auth/oauth-proxy/replicas.test.ts',
  'test/auth/oauth-proxy/proxy-forward.test.ts',
  'test/auth/login-oauth-proxy.test.ts',
];

export function isSlow(file: string): boolean {
  return SLOW.some((prefix) => file.startsWith(prefix));
}

function main(): void {
  const dashes = process.argv.indexOf('--');
  const own = dashes === -1 ? process.argv.slice(2) : process.argv.slice(2, dashes);
  const passed = dashes === -1 ? [] : process.argv.slice(dashes + 1);
  const { values, positionals } = parseArgs({
    args: own,
    allowPositionals: true,
    options: { all: { type: 'boolean', default: false }, slow: { type: 'boolean', default: false } },
  });
  const all = globSync('test/**/*.test.ts', { cwd: ROOT, exclude: NOT_OURS })
    .map((f) => f.split(path.sep).join('/'))
    .sort();
  const chosen = all.filter((file) => {
    if (positionals.length > 0) return positionals.some((p) => file.startsWith(p.replace(/^\.\//, '')));
    if (values.all) return true;
    return values.slow ? isSlow(file) : !isSlow(file);
  });
  if (chosen.length === 0) {
    console.error(`scripts/test.ts: no test file matches ${positionals.join(' ') || 'this lane'}`);
    process.exit(2);
  }
  const lane =
    positionals.length > 0
      ? 'the chosen files'
      : values.all
        ? 'every test'
        : values.slow
          ? 'the slow lane'
          : 'the quick lane';
  console.error(
    `scripts/test.ts: ${lane}, ${chosen.length} file${chosen.length === 1 ? '' : 's'}` +
      (values.all || values.slow || positionals.length > 0
        ? ''
        : ' (npm run test:all adds end-to-end, fuzz, browser, image and pack tests)'),
  );
  const result = spawnSync(process.execPath, [...runnerArgs(lane), ...passed, ...chosen], {
    cwd: ROOT,
    stdio: 'inherit',
    env: testEnv(process.env),
  });
  process.exit(result.status ?? 1);
}

/** `node --test` and its options for `lane`; the files follow. */
export function runnerArgs(lane: string): string[] {
  return [
    '--test',
    `--test-concurrency=${concurrency(lane)}`,
    // Each test is bounded, and a file still running a while after its tests ended (a failed
    // test left a socket or a child behind) is failed and ended: never a hung lane.
    '--test-timeout=120000',
    '--import',
    WATCHDOG,
  ];
}

/**
 * Test files run at once: three in the quick lane, whose files mostly wait on sockets and child
 * processes (on two cores: about 87 s against 101 s with two), two where the slow lane's
 * timing-sensitive end-to-end runs are included.
 */
export function concurrency(lane: string): number {
  return lane === 'the quick lane' ? 3 : 2;
}

/**
 * The environment of the test processes: Node's on-disk compile cache turned on (in
 * `node_modules/.cache/mcp-toolkit/tests`), so each of the many test files and the servers they
 * spawn skip compiling the same modules again (about 0.15 s of CPU per file on two cores). A
 * cache the user set (`NODE_COMPILE_CACHE`) or turned off (`NODE_DISABLE_COMPILE_CACHE`) is kept.
 */
export function testEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.NODE_COMPILE_CACHE !== undefined || env.NODE_DISABLE_COMPILE_CACHE !== undefined) return env;
  return { ...env, NODE_COMPILE_CACHE: path.join(ROOT, 'node_modules', '.cache', 'mcp-toolkit', 'tests') };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
