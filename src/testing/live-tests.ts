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
import { junit, spec, tap } from 'node:test/reporters';
import { type LiveCase, type LivePlan, type LiveTestOptions, planLiveTests } from './live-plan.ts';
import { describeTarget, resolveTarget, type Target } from './targets.ts';

export type { LiveTestOptions } from './live-plan.ts';

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
  hooks: { onPlan?: (plan: LivePlan) => void } = {},
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
    const register = (c: LiveCase, final: boolean) =>
      test(c.name, c.skip ? { skip: c.skip } : {}, async (t) => {
        if (final) await othersDone;
        try {
          const out = await c.run();
          if (out.skipped !== undefined) t.skip(out.skipped);
          for (const note of out.notes ?? []) t.diagnostic(note);
          if (out.warnings && out.warnings.length > 0) {
            for (const w of out.warnings) t.diagnostic(`warning: ${w}`);
            // A warning is not a pass: reported as TODO (counted, shown, never failing).
            t.todo(`warning: ${out.warnings.join('; ')}`);
          }
        } finally {
          if (!final && --remaining === 0) release();
        }
      });
    for (const c of plan.cases) register(c, FINAL_CASES.has(c.name));
  });
}

type Handoff = Map<string, { target: Target; options: LiveTestOptions; onPlan: (plan: LivePlan) => void }>;
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
  registerLiveTests(entry.target, entry.options, { onPlan: entry.onPlan });
}

export type ReporterName = 'spec' | 'tap' | 'junit';

export interface RunLiveTestsOptions extends LiveTestOptions {
  /** Reporter for `write` (default spec). */
  reporter?: ReporterName;
  /** Also write the chosen reporter's output to this file (e.g. JUnit XML for CI). */
  output?: string;
  /** Receives the reporter's output as it is produced (default: process.stdout). */
  write?: (text: string) => void;
}

export interface LiveRunSummary {
  ok: boolean;
  passed: number;
  failed: number;
  skipped: number;
  /** Warnings (reported as TODO). */
  todo: number;
  /** Tools not called because they could write (not annotated readOnlyHint: true), and how to include them. */
  notCalled: { tools: string[]; hint: string };
}

function reporterFor(name: ReporterName) {
  return name === 'tap' ? tap : name === 'junit' ? junit : new spec();
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
  const { reporter = 'spec', output, write = (text) => process.stdout.write(text), ...liveOptions } = options;
  const id = randomUUID();
  const summary: LiveRunSummary = {
    ok: true,
    passed: 0,
    failed: 0,
    skipped: 0,
    todo: 0,
    notCalled: { tools: [], hint: '' },
  };
  handoff().set(id, {
    target,
    options: liveOptions,
    onPlan: (plan) => {
      summary.notCalled = plan.notCalled;
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
  try {
    const stream = run({ files: [runner], isolation: 'none' });
    stream.on('data', (event: { type: string; data: TestEventData }) => {
      if (output !== undefined) events.push(event);
      const isTest = event.data?.details?.type === 'test';
      if (event.type === 'test:fail') {
        summary.ok = false;
        if (isTest) summary.failed++;
      } else if (event.type === 'test:pass' && isTest) {
        if (event.data.skip !== undefined && event.data.skip !== false) summary.skipped++;
        else if (event.data.todo !== undefined && event.data.todo !== false) summary.todo++;
        else summary.passed++;
      }
    });
    const live = output === undefined ? reporterFor(reporter) : new spec();
    for await (const chunk of stream.compose(live)) write(String(chunk));
    if (output !== undefined) {
      let text = '';
      for await (const chunk of Readable.from(events).compose(reporterFor(reporter))) text += String(chunk);
      await writeFile(output, text);
    }
  } finally {
    handoff().delete(id);
    await rm(dir, { recursive: true, force: true });
  }
  return summary;
}
