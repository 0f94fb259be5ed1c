/**
 * `node cli-entry.ts check|test ...`: the two test-kit commands without bin/mcp-toolkit.js, so
 * their tests do not depend on how main.ts wires them. Exits with the command's code.
 */
import { runCheck } from '../../../src/cli/check.ts';
import { runTest } from '../../../src/cli/test.ts';

const [command, ...rest] = process.argv.slice(2);
const io = {
  out: (text: string) => process.stdout.write(text),
  err: (text: string) => process.stderr.write(text),
  env: process.env,
};
process.exitCode =
  command === 'check' ? await runCheck(rest, io) : command === 'test' ? await runTest(rest, io) : 2;
