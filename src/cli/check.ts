/**
 * `mcp-toolkit check <url | -- command>`: the conformance report as a checklist (or JSON).
 * Exit codes: 0 every check passed, 1 a check failed, 2 a usage mistake.
 */

import { parseTargetArgs, TARGET_HELP, UsageError } from '../testing/cli-args.ts';
import { conformanceReport, formatReport } from '../testing/conformance-report.ts';
import { defaultTokenFile, getStoredToken } from './login.ts';

/** Where the test-kit commands write, and the environment they read (tests pass their own). */
export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
}

export const CHECK_HELP = `Usage: mcp-toolkit check <url | -- command [args...]> [options]

Runs the conformance checks (lifecycle, JSON-RPC codes, tools, resources, prompts, stdout
purity, the 2026 wire) and prints a checklist; exits 1 when any check fails.

${TARGET_HELP}
  --json                     print the report as JSON`;

/** Adds the token `mcp-toolkit login` stored for this URL unless auth was given. */
export async function withStoredToken(
  parsed: {
    url: string | undefined;
    explicitAuth: boolean;
    tokenFile: string | undefined;
    connect: { headers?: Record<string, string> };
  },
  io: CommandIo,
): Promise<void> {
  if (parsed.url === undefined || parsed.explicitAuth) return;
  try {
    const token = await getStoredToken(parsed.url, {
      tokenFile: parsed.tokenFile ?? defaultTokenFile(io.env),
    });
    if (token !== undefined)
      parsed.connect.headers = { ...parsed.connect.headers, authorization: `Bearer ${token}` };
  } catch (err) {
    io.err(`mcp-toolkit: ignoring the stored token: ${(err as Error).message}\n`);
  }
}

export async function runCheck(argv: readonly string[], io: CommandIo): Promise<number> {
  let parsed: ReturnType<typeof parseTargetArgs>;
  try {
    parsed = parseTargetArgs(argv, { json: { type: 'boolean' } }, io.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`mcp-toolkit check: ${err.message}\n\n${CHECK_HELP}\n`);
    return 2;
  }
  if (parsed.help) {
    io.out(`${CHECK_HELP}\n`);
    return 0;
  }
  await withStoredToken(parsed, io);
  const report = await conformanceReport(parsed.target, parsed.connect);
  io.out(parsed.values.json === true ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
  return report.ok ? 0 : 1;
}
