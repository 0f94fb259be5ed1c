/**
 * Helpers for the test kit's own tests: a broken fixture server on in-memory streams (no
 * process), running a live-test plan's cases directly, and the CLI entry spawned as a child.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { StreamsTarget, Target } from '../../../src/testing/client/targets.ts';
import { type LiveTestOptions, planLiveTests } from '../../../src/testing/live/plan.ts';
import { type LiveVerdict, runCase } from '../../../src/testing/live/verdict.ts';
import type { DefectName } from '../../fixtures/broken-servers/defects.ts';
import { runLineServer } from '../../fixtures/broken-servers/line-server.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/broken-servers');
export const CLI_ENTRY = path.join(REPO_ROOT, 'test/testing/helpers/cli-entry.ts');

/** Short timeouts: the fixtures answer in milliseconds; a missing answer should not cost seconds. */
export const FAST = { requestTimeoutMs: 1_500, callTimeoutMs: 3_000, notificationWaitMs: 100 } as const;

/**
 * For fixtures that answer every request (the HTTP fixture answers each POST, defect or not): the
 * timeouts are only a safety net, so they are sized for a loaded two-core machine (load average
 * 20 and more), where a handshake can wait seconds for the CPU. No test waits them out.
 */
export const PATIENT = { requestTimeoutMs: 30_000, callTimeoutMs: 30_000, notificationWaitMs: 100 } as const;

/** The fixture with `defect`, served on a pair of in-memory streams. */
export async function fixtureStreams(defect: DefectName): Promise<StreamsTarget> {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  await runLineServer(defect, toServer, fromServer);
  return { streams: { toServer, fromServer, label: `fixture ${defect}` } };
}

export interface PlanRun {
  names: string[];
  /** Findings: tests that failed or warned (their levels are pinned where it matters), by name. */
  failed: Map<string, string>;
  /** Passed with a warning of their own (e.g. idempotentHint beside readOnlyHint). */
  warned: Set<string>;
  skipped: Map<string, string>;
  verdicts: Map<string, LiveVerdict>;
}

/**
 * Plans the live tests and runs every case (a few at a time), without node's test runner. The
 * fixtures are disposable and reach nothing outside, so tools that could write are called and
 * open-world ones get the generated values too, unless the options say otherwise.
 */
export async function runPlan(target: Target, options: LiveTestOptions = {}): Promise<PlanRun> {
  const plan = await planLiveTests(target, { ...FAST, allowWrites: true, fuzzOpenWorld: true, ...options });
  const out: PlanRun = {
    names: plan.cases.map((c) => c.name),
    failed: new Map(),
    warned: new Set(),
    skipped: new Map(),
    verdicts: new Map(),
  };
  const queue = plan.cases.filter((c) => {
    if (c.skip) out.skipped.set(c.name, c.skip);
    return !c.skip;
  });
  const final = queue.filter((c) => c.name === 'test_stdout_carries_only_jsonrpc');
  const rest = queue.filter((c) => !final.includes(c));
  const run = async (c: (typeof queue)[number]) => {
    const v = await runCase(c, { strict: options.strict === true });
    out.verdicts.set(c.name, v);
    if (v.status === 'not-run') out.skipped.set(c.name, v.reason ?? '');
    else if (v.finding) out.failed.set(c.name, v.reason ?? '');
    else if (v.status === 'warn' || v.status === 'fail') out.warned.add(c.name);
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: options.concurrency ?? 4 }, async () => {
      while (next < rest.length) await run(rest[next++]!);
    }),
  );
  for (const c of final) await run(c);
  for (const c of plan.cases) if (c.skip) out.verdicts.set(c.name, await runCase(c));
  await plan.close();
  return out;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `check`/`test` through the CLI entry in a child process (node's test runner needs its own process). */
export function runCli(
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // NODE_TEST_CONTEXT would make the child's test runner report to this one instead of stdout.
    const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
    const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...inherited, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
