/**
 * `mcp-toolkit test <url | -- command>`: the generated live tests, run by node's test runner
 * and reported as spec or TAP, and as JUnit written as the run goes. Exit codes as for
 * `check` (src/testing/report/cli-report.ts): 0, 1 a test failed, 2 a usage mistake, 3 no connection.
 */

import { describeTarget, resolveTarget } from '../testing/client/targets.ts';
import { runLiveTests } from '../testing/live/tests.ts';
import type { Baseline } from '../testing/report/baseline.ts';
import {
  parseTargetArgs,
  positiveInt,
  TARGET_HELP,
  UsageError,
  withClientAnswers,
} from '../testing/report/cli-args.ts';
import { EXIT, outcome, verdictCase } from '../testing/report/cli-report.ts';
import { JUnitWriter, renderJUnit } from '../testing/report/junit-report.ts';
import { baselineOption, type CommandIo, REPORT_HELP, REPORT_OPTIONS, withStoredToken } from './check.ts';

export const TEST_HELP = `Usage: mcp-toolkit test <url | -- command [args...]> [options]

Generates tests from the server's tools (metadata, annotations, schema fields, example and
schema-generated calls, invalid input, protocol errors) and runs them with node's test runner.
Only tools annotated readOnlyHint: true are called unless --allow-writes is given.

${TARGET_HELP}
  --reporter spec|tap|junit  report format on stdout (default spec; junit: the same XML as --junit)
  --output FILE              write the --reporter format to FILE (the spec report still goes to stdout)
  --allow-writes             also call tools not annotated readOnlyHint: true (they could
                             write: use it on a local or disposable server only)
  --read-only, --production  never call a tool that could write (the default)
  --invalid-input MODE       what invalid input must get: error (-32602), result (isError)
                             or either (default; the spec moved from one to the other)
  --fuzz                     also send huge and extreme generated values (1e15, long strings)
  --fuzz-open-world          send the generated values to tools that may reach the outside
                             world too (openWorldHint true or not false; default: their
                             basic schema-valid call only)
  --concurrency N            generated tests run N at a time (default 1)
  --max-calls-per-tool N     cap on schema-generated calls per tool (default 50)
${REPORT_HELP.replace('--strict                   SHOULD and house rules fail too (default: they warn)', '--strict                   SHOULD and house rules fail too, and every tool must declare\n                             examples and an outputSchema')}`;

const TEST_OPTIONS = {
  reporter: { type: 'string' },
  output: { type: 'string' },
  'allow-writes': { type: 'boolean' },
  'read-only': { type: 'boolean' },
  production: { type: 'boolean' },
  'invalid-input': { type: 'string' },
  fuzz: { type: 'boolean' },
  'fuzz-open-world': { type: 'boolean' },
  concurrency: { type: 'string' },
  'max-calls-per-tool': { type: 'string' },
  ...REPORT_OPTIONS,
} as const;

type Reporter = 'spec' | 'tap' | 'junit';

export async function runTest(argv: readonly string[], io: CommandIo): Promise<number> {
  let parsed: ReturnType<typeof parseTargetArgs>;
  let reporter: Reporter;
  let invalidInput: 'error' | 'result' | 'either';
  let concurrency: number;
  let maxCallsPerTool: number;
  let baseline: Baseline | undefined;
  try {
    parsed = parseTargetArgs(argv, TEST_OPTIONS, io.env);
    const v = parsed.values;
    reporter = (v.reporter as Reporter | undefined) ?? 'spec';
    if (!['spec', 'tap', 'junit'].includes(reporter))
      throw new UsageError(`--reporter expects spec, tap or junit, got "${reporter}"`);
    invalidInput = (v['invalid-input'] as typeof invalidInput | undefined) ?? 'either';
    if (!['error', 'result', 'either'].includes(invalidInput)) {
      throw new UsageError(`--invalid-input expects error, result or either, got "${invalidInput}"`);
    }
    if (v['allow-writes'] === true && (v['read-only'] === true || v.production === true))
      throw new UsageError('--allow-writes contradicts --read-only/--production: choose one');
    concurrency = positiveInt('concurrency', v.concurrency, 1);
    maxCallsPerTool = positiveInt('max-calls-per-tool', v['max-calls-per-tool'], 50);
    if (!parsed.help) {
      baseline = await baselineOption(v.baseline);
      await withClientAnswers(parsed);
    }
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`mcp-toolkit test: ${err.message}\n\n${TEST_HELP}\n`);
    return EXIT.usage;
  }
  if (parsed.help) {
    io.out(`${TEST_HELP}\n`);
    return EXIT.ok;
  }
  await withStoredToken(parsed, io);
  const v = parsed.values;
  const target = describeTarget(resolveTarget(parsed.target));
  const suite = { name: 'mcp-toolkit test', target };
  // JUnit from our writer (not node's reporter): classname and file name the check and the
  // target, and the file is rewritten after every verdict.
  const junitFile =
    typeof v.junit === 'string'
      ? v.junit
      : reporter === 'junit' && typeof v.output === 'string'
        ? v.output
        : undefined;
  const junit = junitFile !== undefined ? new JUnitWriter(junitFile, suite) : undefined;
  const nodeReporter = reporter === 'junit' ? 'spec' : reporter;
  const started = new Date();
  const summary = await runLiveTests(parsed.target, {
    ...parsed.connect,
    strict: v.strict === true,
    allowWrites: v['allow-writes'] === true,
    readOnly: v['read-only'] === true || v.production === true,
    fuzz: v.fuzz === true,
    fuzzOpenWorld: v['fuzz-open-world'] === true,
    invalidInput,
    concurrency,
    maxCallsPerTool,
    // `--reporter junit` alone prints the XML once the run ends, not the spec report.
    reporter: nodeReporter,
    ...(reporter !== 'junit' && typeof v.output === 'string' ? { output: v.output } : {}),
    write: reporter === 'junit' && junitFile === undefined ? () => {} : (text) => io.out(text),
    onPlan: (plan) => {
      if (plan.revision) junit?.setProperty('protocolVersion', plan.revision);
    },
    onVerdict: (verdict) => junit?.add(verdictCase(verdict, baseline)),
  });
  if (reporter === 'junit' && junitFile === undefined) {
    io.out(
      renderJUnit(
        suite,
        summary.verdicts.map((x) => verdictCase(x, baseline)),
        started,
      ),
    );
  }
  const { tools, hint } = summary.notCalled;
  if (tools.length > 0) {
    io.out(
      `\nNot called (not annotated readOnlyHint: true, so a call could write): ${tools.join(', ')}\n` +
        `  ${hint}\n`,
    );
  }
  const subjects = summary.verdicts.map((x) => ({ id: x.check, name: x.name, status: x.status }));
  const unreachable = summary.verdicts.some((x) => x.name === 'test_mcp_tools[NO ENDPOINT FOUND]');
  const result = outcome(subjects, { ...(baseline ? { baseline } : {}), unreachable });
  // The XML on stdout stays parsable: the closing text goes to stderr then.
  if (reporter === 'junit' && junitFile === undefined) io.err(`${result.text}\n`);
  else io.out(`\n${result.text}\n`);
  // A test:fail outside any verdict (the suite itself broke) fails the run too.
  return result.code === EXIT.ok && summary.broken ? EXIT.failed : result.code;
}
