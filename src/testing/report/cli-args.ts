/**
 * Command-line parsing shared by `mcp-toolkit check` and `mcp-toolkit test`: the target (a URL,
 * or `-- <command> [args...]`), the wire, auth headers and timeouts. Pure: the environment and
 * any stored token are the caller's business.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ClientAnswersError, loadClientAnswers, parseCapabilityList } from '../client/client-answers.ts';
import type { ConnectOptions, Target, WireChoice } from '../client/targets.ts';

/** A usage mistake: the commands print it with their help and exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const TARGET_OPTIONS = {
  wire: { type: 'string' },
  header: { type: 'string', multiple: true },
  'api-key': { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'call-timeout': { type: 'string' },
  'request-timeout': { type: 'string' },
  'startup-timeout': { type: 'string' },
  'client-capabilities': { type: 'string' },
  'client-answers': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

export const TARGET_HELP = `Targets:
  <url>                      a streamable HTTP endpoint (a bare origin means /mcp)
  -- <command> [args...]     a stdio server, spawned with this environment

Options:
  --wire 2025|2026|auto      protocol generation (default auto: server/discover, else initialize)
  --header 'Name: value'     extra HTTP header (repeatable)
  --api-key KEY              sends X-API-Key: KEY
  --token TOKEN              sends Authorization: Bearer TOKEN
                             (default for URLs: the token stored by mcp-toolkit login)
  --token-file FILE          where mcp-toolkit login stored tokens
  --call-timeout SECONDS     longest wait for one tool call (default 30)
  --request-timeout SECONDS  longest wait for any other request (default 10)
  --startup-timeout SECONDS  longest wait for a stdio server's first answer (default 30)
  --client-capabilities LIST declare and answer sampling,elicitation,roots (any of them), so
                             tools offered only to such clients are listed and called
  --client-answers FILE      the canned answers, as JSON: { "sampling": { "text", "model" },
                             "elicitation": { "action", "content" }, "roots": [{ "uri", "name" }] }`;

export interface ParsedTargetArgs<V> {
  target: Target;
  /** The URL when the target is one (stored-token lookup). */
  url: string | undefined;
  connect: ConnectOptions;
  /** Whether --header/--api-key/--token set any auth (then no stored token is used). */
  explicitAuth: boolean;
  tokenFile: string | undefined;
  values: V;
  help: boolean;
}

function seconds(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new UsageError(`--${flag} expects a positive number of seconds, got "${raw}"`);
  return Math.round(n * 1000);
}

/** Splits `argv` at `--`, parses the options, and builds the target and connection options. */
export function parseTargetArgs<O extends ParseArgsConfig['options']>(
  argv: readonly string[],
  extra: O,
  env: Readonly<Record<string, string | undefined>>,
): ParsedTargetArgs<Record<string, string | boolean | string[] | undefined>> {
  const dd = argv.indexOf('--');
  const own = dd === -1 ? [...argv] : argv.slice(0, dd);
  const command = dd === -1 ? [] : argv.slice(dd + 1);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: own,
      options: { ...TARGET_OPTIONS, ...extra },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const help = values.help === true;
  const positionals = parsed.positionals;
  let target: Target;
  let url: string | undefined;
  if (command.length > 0) {
    if (positionals.length > 0)
      throw new UsageError(`give a URL or -- <command>, not both (got ${positionals.join(' ')})`);
    target = { command: command[0] as string, args: command.slice(1), env };
  } else if (positionals.length === 1) {
    url = positionals[0] as string;
    try {
      new URL(url);
    } catch {
      throw new UsageError(`not a URL: ${url} (to test a stdio server, put the command after --)`);
    }
    target = url;
  } else if (help) {
    target = '';
  } else {
    throw new UsageError(
      positionals.length === 0 ? 'no target: give a URL or -- <command> [args...]' : 'give one target',
    );
  }
  const wire = values.wire as string | undefined;
  if (wire !== undefined && wire !== '2025' && wire !== '2026' && wire !== 'auto') {
    throw new UsageError(`--wire expects 2025, 2026 or auto, got "${wire}"`);
  }
  const headers: Record<string, string> = {};
  for (const h of (values.header as string[] | undefined) ?? []) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header expects 'Name: value', got "${h}"`);
    headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
  }
  if (typeof values['api-key'] === 'string') headers['x-api-key'] = values['api-key'];
  if (typeof values.token === 'string') headers.authorization = `Bearer ${values.token}`;
  const connect: ConnectOptions = { wire: (wire as WireChoice | undefined) ?? 'auto', headers };
  const call = seconds('call-timeout', values['call-timeout'] as string | undefined);
  const request = seconds('request-timeout', values['request-timeout'] as string | undefined);
  if (call !== undefined) connect.callTimeoutMs = call;
  if (typeof values['client-capabilities'] === 'string') {
    try {
      connect.clientCapabilities = parseCapabilityList(values['client-capabilities']);
    } catch (err) {
      throw new UsageError(`--client-capabilities: ${(err as Error).message}`);
    }
  }
  if (request !== undefined) connect.requestTimeoutMs = request;
  const startup = seconds('startup-timeout', values['startup-timeout'] as string | undefined);
  if (startup !== undefined) connect.startupTimeoutMs = startup;
  return {
    target,
    url,
    connect,
    explicitAuth: Object.keys(headers).some((k) => k === 'authorization' || k === 'x-api-key'),
    tokenFile: values['token-file'] as string | undefined,
    values,
    help,
  };
}

/** A positive integer option, or the default. */
export function positiveInt(flag: string, raw: unknown, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--${flag} expects a positive integer, got "${String(raw)}"`);
  return n;
}

/** Reads `--client-answers FILE` into the connection options; a bad file is a usage mistake. */
export async function withClientAnswers(parsed: {
  values: Record<string, unknown>;
  connect: ConnectOptions;
}): Promise<void> {
  const file = parsed.values['client-answers'];
  if (typeof file !== 'string') return;
  try {
    parsed.connect.clientAnswers = await loadClientAnswers(file);
  } catch (err) {
    if (err instanceof ClientAnswersError) throw new UsageError(`--client-answers: ${err.message}`);
    throw err;
  }
}
