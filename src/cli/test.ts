/**
 * `mcp-toolkit test <url | -- command>`: the generated live tests, run by node's test runner
 * and reported as spec, TAP or JUnit. Exit codes: 0 all passed, 1 a test failed, 2 a usage mistake.
 */
import { parseTargetArgs, positiveInt, TARGET_HELP, UsageError } from '../testing/cli-args.ts';
import { type ReporterName, runLiveTests } from '../testing/live-tests.ts';
import { type CommandIo, withStoredToken } from './check.ts';

export const TEST_HELP = `Usage: mcp-toolkit test <url | -- command [args...]> [options]

Generates tests from the server's tools (metadata, annotations, schema fields, example and
schema-generated calls, invalid input, protocol errors) and runs them with node's test runner.

${TARGET_HELP}
  --reporter spec|tap|junit  report format (default spec)
  --output FILE              write the report to FILE (the spec report still goes to stdout)
  --strict                   every tool must declare examples and an outputSchema
  --allow-writes             also call tools not annotated readOnlyHint: true (they could
                             write: use it on a local or disposable server only)
  --read-only, --production  never call a tool that could write (the default)
  --invalid-input MODE       what invalid input must get: error (-32602), result (isError)
                             or either (default; the spec moved from one to the other)
  --concurrency N            generated tests run N at a time (default 1)
  --max-calls-per-tool N     cap on schema-generated calls per tool (default 50)`;

const TEST_OPTIONS = {
  reporter: { type: 'string' },
  output: { type: 'string' },
  strict: { type: 'boolean' },
  'allow-writes': { type: 'boolean' },
  'read-only': { type: 'boolean' },
  production: { type: 'boolean' },
  'invalid-input': { type: 'string' },
  concurrency: { type: 'string' },
  'max-calls-per-tool': { type: 'string' },
} as const;

export async function runTest(argv: readonly string[], io: CommandIo): Promise<number> {
  let parsed: ReturnType<typeof parseTargetArgs>;
  let reporter: ReporterName;
  let invalidInput: 'error' | 'result' | 'either';
  let concurrency: number;
  let maxCallsPerTool: number;
  try {
    parsed = parseTargetArgs(argv, TEST_OPTIONS, io.env);
    const v = parsed.values;
    reporter = (v.reporter as ReporterName | undefined) ?? 'spec';
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
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`mcp-toolkit test: ${err.message}\n\n${TEST_HELP}\n`);
    return 2;
  }
  if (parsed.help) {
    io.out(`${TEST_HELP}\n`);
    return 0;
  }
  await withStoredToken(parsed, io);
  const v = parsed.values;
  const summary = await runLiveTests(parsed.target, {
    ...parsed.connect,
    strict: v.strict === true,
    allowWrites: v['allow-writes'] === true,
    readOnly: v['read-only'] === true || v.production === true,
    invalidInput,
    concurrency,
    maxCallsPerTool,
    reporter,
    ...(typeof v.output === 'string' ? { output: v.output } : {}),
    write: (text) => io.out(text),
  });
  const { tools, hint } = summary.notCalled;
  if (tools.length > 0) {
    io.out(
      `\nNot called (not annotated readOnlyHint: true, so a call could write): ${tools.join(', ')}\n` +
        `  ${hint}\n`,
    );
  }
  return summary.ok ? 0 : 1;
}
