/**
 * `mcp-toolkit check <url | -- command>`: the conformance report as a checklist (or JSON),
 * optionally as JUnit written as the run goes, judged against an expected-failures baseline.
 * Exit codes (src/testing/report/cli-report.ts): 0 nothing failed, 1 a check failed (or a baseline
 * entry is stale), 2 a usage mistake, 3 nothing could be judged (unreachable, refused).
 */

import { describeTarget, resolveTarget } from '../testing/client/targets.ts';
import { authReadinessReport } from '../testing/conformance/auth-readiness.ts';
import { type ConformanceCheck, conformanceReport, formatReport } from '../testing/conformance/report.ts';
import { type Baseline, BaselineError, loadBaseline } from '../testing/report/baseline.ts';
import { parseTargetArgs, TARGET_HELP, UsageError, withClientAnswers } from '../testing/report/cli-args.ts';
import { checkCase, EXIT, outcome } from '../testing/report/cli-report.ts';
import { JUnitWriter } from '../testing/report/junit-report.ts';
import { defaultTokenFile, getStoredToken } from './login.ts';

/** Where the test-kit commands write, and the environment they read (tests pass their own). */
export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
}

export const REPORT_HELP = `  --strict                   SHOULD and house rules fail too (default: they warn)
  --junit FILE               write JUnit XML to FILE as the run goes (for CI)
  --baseline FILE            expected failures, in the conformance suite's YAML format
                             (server: [check-id, ...]); listed failures do not fail the run,
                             listed checks that pass do (remove them)

Exit codes: 0 nothing failed (warnings allowed), 1 a check failed or a baseline entry is
stale, 2 a usage mistake, 3 nothing could be judged (unreachable, or credentials refused)`;

export const CHECK_HELP = `Usage: mcp-toolkit check <url | -- command [args...]> [options]

Runs the conformance checks (lifecycle, JSON-RPC codes, HTTP transport rules, tools,
resources, prompts, stdout purity, the 2026 wire) and prints a checklist: each failure with
its level (MUST, SHOULD, house rule), the fix and the rule's address in the specification.

${TARGET_HELP}
  --json                     print the report as JSON
  --auth                     auth readiness for remote connectors instead (URL targets): the
                             401 challenge, protected resource metadata (path-aware and root),
                             the audience, the authorisation server's metadata, PKCE S256,
                             client registration (twice) or Client ID Metadata Documents,
                             and what an authorisation request meets before anyone signs in
  --client-metadata-url U    with --auth: a Client ID Metadata Document to start that request
                             with, where the server takes them (mcp-toolkit login
                             --print-client-metadata prints one)
${REPORT_HELP}`;

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

export const REPORT_OPTIONS = {
  strict: { type: 'boolean' },
  junit: { type: 'string' },
  baseline: { type: 'string' },
} as const;

/** Reads `--baseline`; a missing or malformed file is a usage mistake. */
export async function baselineOption(value: unknown): Promise<Baseline | undefined> {
  if (typeof value !== 'string') return undefined;
  try {
    return await loadBaseline(value);
  } catch (err) {
    if (err instanceof BaselineError) throw new UsageError(err.message);
    throw err;
  }
}

export async function runCheck(argv: readonly string[], io: CommandIo): Promise<number> {
  let parsed: ReturnType<typeof parseTargetArgs>;
  let baseline: Baseline | undefined;
  try {
    parsed = parseTargetArgs(
      argv,
      {
        json: { type: 'boolean' },
        auth: { type: 'boolean' },
        'client-metadata-url': { type: 'string' },
        ...REPORT_OPTIONS,
      },
      io.env,
    );
    if (parsed.values.auth === true && !parsed.help && parsed.url === undefined)
      throw new UsageError('--auth checks a remote endpoint: give its URL, not a command');
    if (parsed.values['client-metadata-url'] !== undefined && parsed.values.auth !== true)
      throw new UsageError('--client-metadata-url goes with --auth');
    if (!parsed.help) {
      baseline = await baselineOption(parsed.values.baseline);
      await withClientAnswers(parsed);
    }
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`mcp-toolkit check: ${err.message}\n\n${CHECK_HELP}\n`);
    return EXIT.usage;
  }
  if (parsed.help) {
    io.out(`${CHECK_HELP}\n`);
    return EXIT.ok;
  }
  await withStoredToken(parsed, io);
  const v = parsed.values;
  const resolved = resolveTarget(parsed.target);
  const junit =
    typeof v.junit === 'string'
      ? new JUnitWriter(v.junit, {
          name: v.auth === true ? 'mcp-toolkit check --auth' : 'mcp-toolkit check',
          target: describeTarget(resolved),
        })
      : undefined;
  const options = {
    ...parsed.connect,
    strict: v.strict === true,
    ...(junit ? { onCheck: (c: ConformanceCheck) => junit.add(checkCase(c, baseline)) } : {}),
  };
  const report =
    v.auth === true && parsed.url !== undefined
      ? await authReadinessReport(parsed.url, {
          ...options,
          ...(typeof v['client-metadata-url'] === 'string'
            ? { clientMetadataUrl: v['client-metadata-url'] }
            : {}),
        })
      : await conformanceReport(parsed.target, options);
  const result = outcome(report.checks, {
    ...(baseline ? { baseline } : {}),
    unreachable: !report.connected,
  });
  if (junit) {
    if (report.protocolVersion) junit.setProperty('protocolVersion', report.protocolVersion);
    // Spec links point at the negotiated revision, known only after the handshake.
    for (const c of report.checks) junit.replace(checkCase(c, baseline));
    junit.flush();
  }
  if (v.json === true) {
    io.out(
      `${JSON.stringify({ ...report, exitCode: result.code, ...(result.baseline ? { baseline: result.baseline } : {}) }, null, 2)}\n`,
    );
  } else {
    io.out(`${formatReport(report, { closingLine: false })}\n\n${result.text}\n`);
  }
  return result.code;
}
