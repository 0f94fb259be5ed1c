/**
 * `npm run conformance`: runs the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`, pinned in package.json) in server mode against the
 * real server with the conformance plugin, on a free loopback port.
 *
 * Without arguments it runs `--requirements 2025-11-25`, `--requirements 2026-07-28` and
 * `--suite all`, prints a per-scenario summary and exits 1 when any scenario fails or is
 * skipped, the extensions' (`tasks-*`, `sep-2640-skills-*`) included: a scenario the suite
 * skips for an undeclared extension is a failure. The one exception is a scenario the suite
 * itself has not written yet and skips against every server (HARNESS_PENDING, matched on the
 * suite's own reason), reported as `pending`.
 * Any other arguments are handed to a single suite run instead, e.g.
 * `npm run conformance -- --scenario server-stateless`, or
 * `npm run conformance -- --scenario tools-list --spec-version 2026-07-28` for a scenario
 * that runs on both wires (without --spec-version it runs on its first revision's wire).
 *
 * Own options: `--out DIR` keeps the raw results there (default: a fresh temporary folder,
 * so nothing lands in the working tree); `--run-timeout-ms N` bounds each suite run
 * (default 600000); `--replicas N` (N ≥ 2) runs N replicas sharing a real `redis-server`
 * (MCP_REDIS_URL, one MCP_STATE_SECRET) behind a round-robin proxy with no affinity, and
 * points the suite at the proxy, so consecutive requests land on different replicas;
 * `--fastify` runs, instead of the command, a Fastify application of its own
 * (test/fixtures/fastify-conformance-app.ts: one route of its own, `GET /hello`, and the
 * plugin `@mcp-toolkit/server/fastify` with the same plugins and settings) on a free
 * loopback port, and points the suite at its endpoint as in the one-replica case;
 * `--fetch` does the same with the fetch handler (`@mcp-toolkit/server/fetch`) under Hono's
 * Node adapter (test/fixtures/fetch-conformance-app.ts), the server assembled from the same
 * settings with no listener of its own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { type RedisServer, startRedisServer } from '../test/helpers/redis-server.ts';
import { type RoundRobinProxy, startRoundRobinProxy } from '../test/scale/round-robin-proxy.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SUITE_DIR = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance');
const EXTENSION = /^(tasks-|sep-2640-skills-)/;
/**
 * Scenarios the suite skips against every server, with the reason it gives. Should a newer
 * suite give another reason (or run the checks), the skip counts as a failure again.
 * tasks-status-notifications: the suite still has to move it to `subscriptions/listen`;
 * test/tasks/tasks-http.test.ts checks our `notifications/tasks` on that stream instead.
 */
const HARNESS_PENDING: Readonly<Record<string, RegExp>> = {
  'tasks-status-notifications': /harness needs a rewrite/,
};
const SERVER_START_MS = 30_000;
/** The skills the `sep-2640-skills-*` scenarios read (served through MCP_SKILLS_DIR). */
const SKILLS_DIR = path.join(ROOT, 'plugins/conformance/skills');
const STOP_MS = 10_000;
/** What serves the suite: the command, or an application of its own embedding the server. */
type Host = 'command' | 'fastify' | 'fetch';
/** The applications `--fastify` and `--fetch` run the suite against. */
const APPS: Readonly<Record<Exclude<Host, 'command'>, string>> = {
  fastify: path.join(ROOT, 'test/fixtures/fastify-conformance-app.ts'),
  fetch: path.join(ROOT, 'test/fixtures/fetch-conformance-app.ts'),
};

interface Run {
  name: string;
  args: string[];
  /** The requirement set the run measures, for the scored column. */
  revision?: string;
}

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

interface ScenarioResult {
  scenario: string;
  /** `pending`: skipped by the suite for every server (HARNESS_PENDING). */
  status: 'pass' | 'fail' | 'skip' | 'pending';
  /** Why the suite skipped it. */
  skipped?: string;
  scoring: string;
  warnings: number;
  failures: Check[];
}

function parseCli(argv: string[]): {
  out?: string;
  runTimeoutMs: number;
  replicas: number;
  host: Host;
  passThrough: string[];
} {
  const passThrough: string[] = [];
  let out: string | undefined;
  let runTimeoutMs = 600_000;
  let replicas = 1;
  let host: Host = 'command';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--out') out = argv[++i];
    else if (arg === '--run-timeout-ms') runTimeoutMs = Number(argv[++i]);
    else if (arg === '--replicas') replicas = Number(argv[++i]);
    else if (arg === '--fastify' || arg === '--fetch') {
      if (host !== 'command') throw new Error('--fastify and --fetch are two hosts: give one');
      host = arg === '--fastify' ? 'fastify' : 'fetch';
    } else passThrough.push(arg);
  }
  if (!(Number.isInteger(runTimeoutMs) && runTimeoutMs > 0)) {
    throw new Error('--run-timeout-ms needs a positive integer');
  }
  if (!(Number.isInteger(replicas) && replicas >= 1 && replicas <= 8)) {
    throw new Error('--replicas needs an integer from 1 to 8');
  }
  if (host !== 'command' && replicas !== 1) {
    throw new Error(`--${host} runs one application: it takes no --replicas`);
  }
  return { out, runTimeoutMs, replicas, host, passThrough };
}

/** The suite's entry point, from its package.json `bin`. */
function suiteBin(): string {
  const pkg = JSON.parse(readFileSync(path.join(SUITE_DIR, 'package.json'), 'utf8')) as {
    bin: string | Record<string, string>;
  };
  const bin = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin)[0];
  if (!bin) throw new Error('@modelcontextprotocol/conformance has no bin entry');
  return path.join(SUITE_DIR, bin);
}

/** A clean environment for the server: the caller's MCP_* settings (auth, plugins...) do not leak in. */
function serverEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('MCP_')) env[k] = v;
  return {
    ...env,
    MCP_PLUGINS: 'conformance',
    MCP_SKILLS_DIR: SKILLS_DIR,
    MCP_LOG_LEVEL: 'warn',
    MCP_LOG_FORMAT: 'json',
    ...extra,
  };
}

/** A free loopback port (an application is told its port, so its settings name it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port')),
      );
    });
  });
}

/**
 * Starts `mcp-toolkit run` on port 0 (or, with `--fastify` or `--fetch`, that application on a
 * free port) and resolves with the URL it prints on stderr.
 */
async function startServer(
  logFile: string,
  extra: Record<string, string> = {},
  host: Host = 'command',
): Promise<{ child: ChildProcess; url: string }> {
  const child =
    host !== 'command'
      ? spawn(process.execPath, [APPS[host]], {
          cwd: ROOT,
          env: serverEnv({ ...extra, MCP_HTTP_HOST: '127.0.0.1', MCP_HTTP_PORT: String(await freePort()) }),
          stdio: ['ignore', 'ignore', 'pipe'],
        })
      : spawn(
          process.execPath,
          [
            path.join(ROOT, 'bin/mcp-toolkit.js'),
            'run',
            '--transport',
            'http',
            '--host',
            '127.0.0.1',
            '--port',
            '0',
          ],
          { cwd: ROOT, env: serverEnv(extra), stdio: ['ignore', 'ignore', 'pipe'] },
        );
  const log = createWriteStream(logFile);
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start within ${SERVER_START_MS} ms:\n${seen}`));
    }, SERVER_START_MS);
    child.stderr?.on('data', (chunk: Buffer) => {
      log.write(chunk);
      if (seen.length < 65_536) seen += chunk.toString();
      const m = /mcp-toolkit listening on (http:\/\/[^\s"]+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] as string });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (code ${code}) before listening:\n${seen}`));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_MS);
  await exited;
  clearTimeout(timer);
}

let current: ChildProcess | undefined;

/** Runs the suite once, its output in `<dir>.log`; resolves with how it ended. */
function runSuite(bin: string, url: string, run: Run, dir: string, timeoutMs: number) {
  const child = spawn(process.execPath, [bin, 'server', '--url', url, '-o', dir, ...run.args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  current = child;
  const log = createWriteStream(`${dir}.log`);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), STOP_MS).unref();
  }, timeoutMs);
  return new Promise<{ code: number | null; timedOut: boolean }>((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(timer);
      current = undefined;
      resolve({ code, timedOut });
    });
  });
}

/** Scored scenarios and the reasons others are not, from the suite's requirement file. */
async function requirements(revision: string): Promise<{ scored: string[]; reasons: Map<string, string> }> {
  const doc = parseYaml(await readFile(path.join(SUITE_DIR, 'requirements', `${revision}.yaml`), 'utf8')) as {
    server?: string[];
    not_scored?: { scenario: string; leg: string; reason: string }[];
  };
  const reasons = new Map<string, string>();
  for (const n of doc.not_scored ?? []) if (n.leg === 'server') reasons.set(n.scenario, n.reason);
  return { scored: doc.server ?? [], reasons };
}

/** Reads `<dir>/server-<scenario>-<timestamp>/checks.json` for every scenario of a run. */
async function readResults(dir: string, run: Run): Promise<ScenarioResult[]> {
  const req = run.revision ? await requirements(run.revision) : undefined;
  const scoring = (s: string) =>
    req === undefined
      ? EXTENSION.test(s)
        ? 'extension'
        : '-'
      : req.scored.includes(s)
        ? 'scored'
        : (req.reasons.get(s) ?? 'not scored');
  const results: ScenarioResult[] = [];
  const entries = await readdir(dir).catch(() => [] as string[]);
  for (const entry of entries.sort()) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    if (!m) continue;
    const scenario = m[1] as string;
    const checks = JSON.parse(await readFile(path.join(dir, entry, 'checks.json'), 'utf8')) as Check[];
    const failures = checks.filter((c) => c.status === 'FAILURE');
    // The suite adds wire-schema-valid to every scenario; one that decided nothing else was skipped.
    const decided = checks.filter(
      (c) => (c.status === 'SUCCESS' || c.status === 'FAILURE') && c.id !== 'wire-schema-valid',
    );
    const skipped = checks.find((c) => c.status === 'SKIPPED')?.errorMessage ?? 'no check was decided';
    const pending = HARNESS_PENDING[scenario]?.test(skipped) === true;
    results.push({
      scenario,
      status: failures.length > 0 ? 'fail' : decided.length > 0 ? 'pass' : pending ? 'pending' : 'skip',
      ...(decided.length === 0 ? { skipped } : {}),
      scoring: scoring(scenario),
      warnings: checks.filter((c) => c.status === 'WARNING').length,
      failures,
    });
  }
  // A scored scenario that left no result counts as failed.
  for (const s of req?.scored ?? []) {
    if (!results.some((r) => r.scenario === s)) {
      results.push({
        scenario: s,
        status: 'fail',
        scoring: 'scored',
        warnings: 0,
        failures: [{ id: 'no-result', status: 'FAILURE', errorMessage: 'the suite wrote no result' }],
      });
    }
  }
  return results;
}

function report(run: Run, results: ScenarioResult[]): number {
  const scored = results.filter((r) => r.scoring === 'scored');
  const blocking = results.filter((r) => r.status === 'fail' || r.status === 'skip');
  const passed = (list: ScenarioResult[]) => list.filter((r) => r.status === 'pass').length;
  const pending = results.filter((r) => r.status === 'pending').length;
  const head = run.revision
    ? `${passed(scored)}/${scored.length} scored passed`
    : `${passed(results)}/${results.length} passed${pending > 0 ? ` (${pending} pending in the suite)` : ''}`;
  console.log(`\n== ${run.name}: ${head}, ${blocking.length} blocking failure(s)`);
  const width = Math.max(10, ...results.map((r) => r.scenario.length)) + 2;
  for (const r of results) {
    const warn = r.warnings > 0 ? `  (${r.warnings} warning${r.warnings > 1 ? 's' : ''})` : '';
    console.log(`  ${r.scenario.padEnd(width)}${r.status.padEnd(8)}${r.scoring}${warn}`);
  }
  for (const r of blocking) {
    if (r.status === 'skip') console.log(`  ✗ ${r.scenario} skipped: ${(r.skipped ?? '').slice(0, 400)}`);
    for (const f of r.failures) {
      console.log(`  ✗ ${r.scenario} / ${f.id}: ${(f.errorMessage ?? '').slice(0, 400)}`);
    }
  }
  return blocking.length;
}

function runsFor(passThrough: string[]): Run[] {
  if (passThrough.length > 0) {
    const i = passThrough.indexOf('--requirements');
    return [{ name: 'custom', args: passThrough, revision: i >= 0 ? passThrough[i + 1] : undefined }];
  }
  return [
    { name: 'requirements-2025-11-25', args: ['--requirements', '2025-11-25'], revision: '2025-11-25' },
    { name: 'requirements-2026-07-28', args: ['--requirements', '2026-07-28'], revision: '2026-07-28' },
    { name: 'suite-all', args: ['--suite', 'all'] },
  ];
}

/** What the suite runs against: one server, or replicas sharing Redis behind a proxy. */
interface Target {
  url: string;
  servers: ChildProcess[];
  stop(): Promise<void>;
}

async function startTarget(outDir: string, replicas: number, host: Host): Promise<Target> {
  if (replicas === 1) {
    const { child, url } = await startServer(path.join(outDir, 'server.log'), {}, host);
    return { url, servers: [child], stop: () => stop(child) };
  }
  let redis: RedisServer | undefined;
  let proxy: RoundRobinProxy | undefined;
  const servers: ChildProcess[] = [];
  const stopAll = async () => {
    await proxy?.close();
    await Promise.all(servers.map((child) => stop(child)));
    await redis?.stop();
  };
  try {
    redis = await startRedisServer();
    const shared = { MCP_REDIS_URL: redis.url, MCP_STATE_SECRET: randomBytes(32).toString('hex') };
    const started = await Promise.all(
      Array.from({ length: replicas }, (_, i) =>
        startServer(path.join(outDir, `server-${i + 1}.log`), shared),
      ),
    );
    servers.push(...started.map((s) => s.child));
    proxy = await startRoundRobinProxy(started.map((s) => new URL(s.url).origin));
    const first = new URL(started[0]?.url as string);
    return { url: `${proxy.origin}${first.pathname}`, servers, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

async function main(): Promise<number> {
  const { out, runTimeoutMs, replicas, host, passThrough } = parseCli(process.argv.slice(2));
  const outDir = out ? path.resolve(out) : await mkdtemp(path.join(tmpdir(), 'mcp-conformance-'));
  await mkdir(outDir, { recursive: true });
  const bin = suiteBin();
  const target = await startTarget(outDir, replicas, host);
  const { url, servers } = target;
  const onSignal = () => {
    current?.kill('SIGTERM');
    for (const server of servers) server.kill('SIGTERM');
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  console.log(
    host === 'fastify'
      ? `conformance: the Fastify plugin on an application of its own at ${url}; raw results in ${outDir}`
      : host === 'fetch'
        ? `conformance: the fetch handler under Hono's Node adapter at ${url}; raw results in ${outDir}`
        : replicas === 1
          ? `conformance: server at ${url}; raw results in ${outDir}`
          : `conformance: ${replicas} replicas sharing Redis behind a round-robin proxy at ${url}; raw results in ${outDir}`,
  );
  let blocking = 0;
  try {
    for (const run of runsFor(passThrough)) {
      const dir = path.join(outDir, run.name);
      console.log(`conformance: running ${run.args.join(' ')} ...`);
      const ended = await runSuite(bin, url, run, dir, runTimeoutMs);
      const results = await readResults(dir, run);
      blocking += report(run, results);
      if (ended.timedOut) {
        console.log(`  ✗ the run was stopped after ${runTimeoutMs} ms (see ${dir}.log)`);
        blocking++;
      } else if (results.length === 0) {
        console.log(`  ✗ the suite produced no results (exit code ${ended.code}; see ${dir}.log)`);
        blocking++;
      }
      if (servers.some((server) => server.exitCode !== null || server.signalCode !== null)) {
        console.log(`  ✗ a server stopped during the run (see the server logs in ${outDir})`);
        return 1;
      }
    }
  } finally {
    await target.stop();
  }
  console.log(
    blocking === 0
      ? '\nconformance: every scenario passed, the extensions included'
      : `\nconformance: ${blocking} blocking failure(s)`,
  );
  return blocking === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`conformance: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
