/**
 * The command line of a bench script: `parseArgs` with `--help` (the usage, exit 0) and, for
 * an unknown or malformed option, its message and the usage on stderr, exit 2, instead of a
 * stack trace.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export function commandLine<const T extends Options>(usage: string, options: T) {
  try {
    const parsed = parseArgs({
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
    });
    if ((parsed.values as Record<string, unknown>).help === true) {
      console.log(usage);
      process.exit(0);
    }
    return parsed.values as ReturnType<typeof parseArgs<{ options: T; strict: true }>>['values'];
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
    process.exit(2);
  }
}
