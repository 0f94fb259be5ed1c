/**
 * The generated live tests as real node test-runner tests: `registerLiveTests` adds them to a
 * user's own `node --test` file; `runLiveTests` runs them through `run()` with a reporter
 * (spec, TAP, JUnit), which is what `mcp-toolkit test` does.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, run, test } from 'node:test';
import { spec, tap } from 'node:test/reporters';
import { describeTarget, resolveTarget, type Target } from '../client/targets.ts';
import { tally, verdictCase } from '../report/cli-report.ts';
import { renderJUnit } from '../report/junit-report.ts';
import { LiveTestFailure } from './calls.ts';
import { type LiveCase, type LivePlan, type LiveTestOptions, planLiveTests } from './plan.ts';
import { type LiveVerdict, runCase, verdictText } from './verdict.ts';

export type { LiveTestOptions } from './plan.ts';

/** Cases that look at the whole run (stdout purity) wait for every other case. */
const FINAL_CASES = new Set(['test_stdout_carries_only_jsonrpc']);

/**
 * Registers the generated tests in the current `node --test` file, inside one `describe`.
 * Discovery (connecting, listing tools) happens when the suite runs.
 *
 * @example
 * // test/live.test.ts, run with `node --test`
 * import { registerLiveTests } from 'mcp-toolkit/testing';
 * registerLiveTests({ command: 'node', args: ['server.js'] }, { strict: true, callTimeoutMs: 5_000 });
 */
export function registerLiveTests(
  target: Target,
  options: LiveTestOptions = {},
  hooks: LiveHooks = {},
): void {
  const resolved = resolveTarget(target);
  describe(`MCP live tests: ${describeTarget(resolved)}`, {
    concurrency: options.concurrency ?? 1,
  }, async () => {
    const plan = await planLiveTests(target, options);
    hooks.onPlan?.(plan);
    after(() => plan.close());
    const others = plan.cases.filter((c) => !FINAL_CASES.has(c.name));
    let remaining = others.filter((c) => !c.skip).length;
    let release: () => void = () => {};
    const othersDone = new Promise<void>((resolve) => {
      release = resolve;
      if (remaining === 0) resolve();
    });
    const judge = { strict: options.strict === true, ...(plan.revision ? { revision: plan.revision } : {}) };
    const register = (c: LiveCase, final: boolean) => {
      if (c.skip !== undefined) void runCase(c, judge).then((v) => hooks.onVerdict?.(v));
      return test(c.name, c.skip ? { skip: c.skip } : {}, async (t) => {
        if (final) await othersDone;
        try {
          const v = await runCase(c, judge);
          hooks.onVerdict?.(v);
          for (const note of v.notes) t.diagnostic(note);
          if (v.status === 'not-run') t.skip(v.reason);
          else if (v.status === 'warn') {
            t.diagnostic(`warning [${v.level}]: ${v.reason}`);
            t.diagnostic(`fix: ${v.fix}`);
            // A warning is not a pass: reported as TODO (counted, shown, never failing).
            t.todo(`warning [${v.level}]: ${v.reason}`);
          } else if (v.status === 'fail') throw new LiveTestFailure(verdictText(v));
        } finally {
          if (!final && --remaining === 0) release();
        }
      });
    };
    for (const c of plan.cases) register(c, FINAL_CASES.has(c.name));
  });
}

/** What a runner learns as the tests run: the plan once discovered, each verdict as it lands. */
export interface LiveHooks {
  onPlan?: (plan: LivePlan) => void;
  onVerdict?: (verdict: LiveVerdict) => void;
}

type Handoff = Map<string, { target: Target; options: LiveTestOptions; hooks: LiveHooks }>;
const HANDOFF = Symbol.for('mcp-toolkit.live-tests.handoff');

function handoff(): Handoff {
  const g = globalThis as unknown as Record<symbol, Handoff | undefined>;
  g[HANDOFF] ??= new Map();
  return g[HANDOFF];
}

/** Called by the generated runner file: registers the tests `runLiveTests` handed over. */
export function registerHandedOff(id: string): void {
  const entry = handoff().get(id);
  if (!entry) throw new Error(`mcp-toolkit: no live-test run ${id} in this process`);
  registerLiveTests(entry.target, entry.options, entry.hooks);
}

export type ReporterName = 'spec' | 'tap' | 'junit';

export interface RunLiveTestsOptions extends LiveTestOptions, LiveHooks {
  /** Reporter for `write` (default spec). */
  reporter?: ReporterName;
  /** Also write the chosen reporter's output to this file (e.g. JUnit XML for CI). */
  output?: string;
  /** Receives the reporter's output as it is produced (default: process.stdout). */
  write?: (text: string) => void;
}

export interface LiveRunSummary {
  /** No generated test failed, and the run itself did not break. */
  ok: boolean;
  /** The run itself broke (discovery threw): a failure no verdict accounts for. */
  broken: boolean;
  passed: number;
  /** MUST rules broken (any rule under `strict`). */
  failed: number;
  /** SHOULD and house rules broken (reported as TODO by node's reporters). */
  warnings: number;
  /** Skipped, or nothing to judge. */
  notRun: number;
  /** Tools not called because they could write (not annotated readOnlyHint: true), and how to include them. */
  notCalled: { tools: string[]; hint: string };
  /** Every generated test's verdict, in the order they landed. */
  verdicts: LiveVerdict[];
}

function reporterFor(name: 'spec' | 'tap') {
  return name === 'tap' ? tap : new spec();
}

interface TestEventData {
  details?: { type?: string };
  skip?: unknown;
  todo?: unknown;
}

/**
 * Runs the generated tests through node's test runner and reports them. With `output`, the
 * chosen reporter goes to the file and the spec reporter to `write`.
 *
 * @example
 * const summary = await runLiveTests('http://127.0.0.1:3000/mcp', { reporter: 'junit', output: 'mcp.xml' });
 * process.exitCode = summary.ok ? 0 : 1;
 */
export async function runLiveTests(
  target: Target,
  options: RunLiveTestsOptions = {},
): Promise<LiveRunSummary> {
  const {
    reporter = 'spec',
    output,
    write = (text) => process.stdout.write(text),
    onPlan: _onPlan,
    onVerdict: _onVerdict,
    ...liveOptions
  } = options;
  const id = randomUUID();
  const summary: LiveRunSummary = {
    ok: true,
    broken: false,
    passed: 0,
    failed: 0,
    warnings: 0,
    notRun: 0,
    notCalled: { tools: [], hint: '' },
    verdicts: [],
  };
  handoff().set(id, {
    target,
    options: liveOptions,
    hooks: {
      onPlan: (plan) => {
        summary.notCalled = plan.notCalled;
        options.onPlan?.(plan);
      },
      onVerdict: (v) => {
        summary.verdicts.push(v);
        options.onVerdict?.(v);
      },
    },
  });
  // run() loads test files by path; a fresh file per run, so a second run in one process registers anew.
  const dir = await mkdtemp(path.join(tmpdir(), 'mcp-toolkit-live-'));
  const runner = path.join(dir, 'live.test.mjs');
  await writeFile(
    runner,
    `import { registerHandedOff } from ${JSON.stringify(import.meta.url)};\nregisterHandedOff(${JSON.stringify(id)});\n`,
  );
  const events: unknown[] = [];
  const started = new Date();
  let nodeFailures = 0;
  let suiteFailed = false;
  try {
    const stream = run({ files: [runner], isolation: 'none' });
    stream.on('data', (event: { type: string; data: TestEventData }) => {
      if (output !== undefined) events.push(event);
      const isTest = event.data?.details?.type === 'test';
      if (event.type === 'test:fail') {
        if (isTest) nodeFailures++;
        else suiteFailed = true;
      }
    });
    // JUnit is the kit's own (junit-report.ts: classname and file name the check and the target).
    const live = output === undefined && reporter !== 'junit' ? reporterFor(reporter) : new spec();
    if (output === undefined && reporter === 'junit') for await (const _ of stream);
    else for await (const chunk of stream.compose(live)) write(String(chunk));
    const suite = { name: 'mcp-toolkit test', target: describeTarget(resolveTarget(target)) };
    const xml = () =>
      renderJUnit(
        suite,
        summary.verdicts.map((v) => verdictCase(v)),
        started,
      );
    if (output !== undefined) {
      let text = '';
      if (reporter === 'junit') text = xml();
      else
        for await (const chunk of Readable.from(events).compose(reporterFor(reporter))) text += String(chunk);
      await writeFile(output, text);
    } else if (reporter === 'junit') write(xml());
  } finally {
    handoff().delete(id);
    await rm(dir, { recursive: true, force: true });
  }
  const t = tally(summary.verdicts);
  Object.assign(summary, t);
  // A test failure no verdict accounts for: the suite itself broke (discovery threw).
  const broken = nodeFailures > t.failed || (suiteFailed && t.failed === 0);
  summary.broken = broken;
  summary.ok = t.failed === 0 && !broken;
  return summary;
}
