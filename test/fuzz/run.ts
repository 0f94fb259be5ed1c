/**
 * One fuzz session against one transport, shared by `npm test` (a few seconds) and
 * `npm run fuzz` (as long as asked): generate runs of cases for a time budget, stop at the
 * first run that shows a problem, then replay that run from its seed and path and shrink it
 * (each attempt on a live server: one that crashed is started again), and report the seed,
 * the path, the smallest failing run and what went wrong.
 */
import fc from 'fast-check';
import { startHttpTarget } from './http-target.ts';
import { startStdioTarget } from './stdio-target.ts';
import { type FuzzTarget, KNOWN_DEFECTS, makeRoot, type TargetStats } from './target.ts';

export interface FuzzOptions {
  readonly transport: 'http' | 'stdio';
  /** How long to generate runs. */
  readonly seconds: number;
  readonly seed?: number;
  /** A fast-check path (from an earlier report) to replay one run instead of generating. */
  readonly path?: string;
  /** How long shrinking a failure may take. */
  readonly shrinkSeconds?: number;
  /** stdio only: `node <argv>` to fuzz instead of `mcp-toolkit run` (the suite's own tests). */
  readonly stdioCommand?: readonly string[];
  /** Progress lines (the seed first). */
  readonly log?: (line: string) => void;
}

export interface FuzzFailure {
  /** The smallest failing run found, case by case, as sent. */
  readonly cases: string[];
  readonly problems: string[];
  /** What the run first found failing showed, when shrinking ended on other problems. */
  readonly firstProblems?: string[];
  readonly path: string;
  readonly shrinks: number;
  /** False when the failing run passed on replay (a failure that depends on timing or state). */
  readonly replayed: boolean;
}

export interface FuzzReport {
  readonly transport: 'http' | 'stdio';
  readonly seed: number;
  readonly runs: number;
  readonly slowestRunMs: number;
  readonly stats: TargetStats;
  readonly failure?: FuzzFailure;
  /** Problems at the end of the session (the server not alive, not stopping cleanly). */
  readonly atEnd: string[];
}

/** A property failure carrying every problem of the run. */
class RunFailed extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join('\n'));
    this.problems = problems;
  }
}

/**
 * The property, run only until `deadline`: a run that starts later is not run and ends the
 * check as interrupted (a success). Unlike fast-check's interruptAfterTimeLimit, a run that
 * has started is never cut short, so its failure is never lost.
 */
function until<Ts>(property: fc.IAsyncPropertyWithHooks<Ts>, deadline: number): fc.IRawProperty<Ts, true> {
  return {
    isAsync: () => true,
    generate: (mrng, runId) => property.generate(mrng, runId),
    shrink: (value) => property.shrink(value),
    run: (v) =>
      Date.now() >= deadline ? Promise.resolve(new fc.PreconditionFailure(true)) : property.run(v),
    runBeforeEach: () => property.runBeforeEach(),
    runAfterEach: () => property.runAfterEach(),
  };
}

async function session<C>(target: FuzzTarget<C>, options: FuzzOptions, seed: number) {
  /** The longest run, in ms (a run waits for every answer owed). */
  let slowest = 0;
  const log = options.log ?? (() => {});
  let runs = 0;
  const property = fc.asyncProperty(target.runArb, async (cases) => {
    runs++;
    const started = performance.now();
    const problems = await target.exchange(cases);
    const ms = performance.now() - started;
    slowest = Math.max(slowest, ms);
    if (ms > 5_000)
      log(`run ${runs} took ${Math.round(ms)} ms: ${cases.map((c) => target.describe(c)).join(' | ')}`);
    if (problems.length > 0) throw new RunFailed(problems);
  });
  const first = await fc.check(until(property, Date.now() + options.seconds * 1000), {
    seed,
    path: options.path,
    numRuns: options.path ? 1 : 1_000_000_000,
    markInterruptAsFailure: false,
    endOnFailure: true,
  });
  if (!first.failed || first.counterexample === null) return { runs, slowest, failure: undefined };
  const found = first.counterexamplePath ?? '';
  log(`run ${runs} failed (path ${found}); shrinking for up to ${options.shrinkSeconds ?? 30} s`);
  const shrunk = await fc.check(until(property, Date.now() + (options.shrinkSeconds ?? 30) * 1000), {
    seed,
    path: found,
    numRuns: 1,
    markInterruptAsFailure: false,
  });
  const best = shrunk.failed && shrunk.counterexample !== null ? shrunk : first;
  const [cases] = best.counterexample as [C[]];
  const problemsOf = (e: unknown) => (e instanceof RunFailed ? e.problems : [String(e)]);
  const problems = problemsOf(best.errorInstance);
  const firstProblems = problemsOf(first.errorInstance);
  const failure: FuzzFailure = {
    cases: cases.map((c) => target.describe(c)),
    problems,
    firstProblems: firstProblems.join('\n') === problems.join('\n') ? undefined : firstProblems,
    path: best.counterexamplePath ?? found,
    shrinks: best === shrunk ? shrunk.numShrinks : 0,
    replayed: best === shrunk,
  };
  return { runs, slowest, failure };
}

/**
 * Fuzzes one transport of a freshly spawned server.
 *
 * @example
 * const report = await fuzz({ transport: 'stdio', seconds: 4 });
 * assert.equal(report.failure, undefined, formatReport(report));
 */
export async function fuzz(options: FuzzOptions): Promise<FuzzReport> {
  const seed = options.seed ?? Math.floor(Math.random() * 0x7fffffff);
  options.log?.(`fuzzing ${options.transport} with seed ${seed}`);
  const { root, remove } = await makeRoot();
  try {
    const target: FuzzTarget<unknown> =
      options.transport === 'http'
        ? ((await startHttpTarget(root)) as FuzzTarget<unknown>)
        : ((await startStdioTarget(root, options.stdioCommand)) as FuzzTarget<unknown>);
    let result: Awaited<ReturnType<typeof session>> | undefined;
    let atEnd: string[] = [];
    try {
      result = await session(target, options, seed);
    } finally {
      atEnd = await target.finish();
    }
    return {
      transport: options.transport,
      seed,
      runs: result.runs,
      slowestRunMs: Math.round(result.slowest),
      stats: target.stats,
      failure: result.failure,
      atEnd,
    };
  } finally {
    await remove();
  }
}

/** A report for people: what ran, and on failure the smallest failing run, the seed and how to replay it. */
export function formatReport(r: FuzzReport): string {
  const s = r.stats;
  const lines = [
    `${r.transport}: seed ${r.seed}, ${r.runs} runs (slowest ${r.slowestRunMs} ms), ${s.payloads} payloads, ${s.answers} answers, ` +
      `${s.internalErrors} internal errors (-32603), ${s.restarts} restarts after a crash`,
  ];
  const outcomes = Object.entries(s.outcomes).sort((a, b) => b[1] - a[1]);
  lines.push(`  answers by outcome: ${outcomes.map(([k, n]) => `${k} ×${n}`).join(', ')}`);
  for (const [msg, n] of Object.entries(s.logErrors)) lines.push(`  server log error ×${n}: ${msg}`);
  for (const [key, n] of Object.entries(s.knownDefects)) {
    lines.push(`  known defect ×${n} (not failed): ${KNOWN_DEFECTS[key as keyof typeof KNOWN_DEFECTS]}`);
  }
  if (r.failure) {
    const f = r.failure;
    lines.push(
      `FAILED${f.replayed ? `, shrunk ${f.shrinks} times` : ' (did not fail again on replay: timing or state)'}; the failing run:`,
      ...f.cases.map((c, i) => `  [${i}] ${c}`),
      'problems:',
      ...f.problems.map((p) => `  - ${p}`),
      ...(f.firstProblems
        ? ['problems of the run first found failing:', ...f.firstProblems.map((p) => `  - ${p}`)]
        : []),
      `replay: npm run fuzz -- --transport ${r.transport} --seed ${r.seed} --path ${f.path}`,
    );
  }
  if (r.atEnd.length > 0) lines.push('at the end:', ...r.atEnd.map((p) => `  - ${p}`));
  return lines.join('\n');
}
