/**
 * `mcp-toolkit proxy [options] -- <command...>` and `mcp-toolkit proxy <url>`: the bundled
 * proxy plugin (plugins/proxy, docs/proxy.md) served over HTTP, its upstream given on the
 * command line instead of MCP_PROXY_COMMAND/_ARGS or MCP_PROXY_URL. Every other setting
 * (auth, rate limits, MCP_PROXY_ENV, MCP_PROXY_SCOPES, ...) comes from the environment, as
 * with `run`; MCP_PLUGINS is replaced by `proxy` alone.
 */

import type { RunIo } from './run.ts';
import { CliUsageError, checkFlags, parseCommand, USAGE } from './usage.ts';

const PROXY_OPTIONS = {
  prefix: { type: 'string' },
  upstreams: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
} as const;

/**
 * The proxy plugin's rule for MCP_PROXY_PREFIX (plugins/proxy/settings.ts), checked as the
 * flag: characters of a tool name, and room left for one (names are at most 64 characters).
 */
const PREFIX = /^[A-Za-z0-9_./-]{1,63}$/;

/** What a command line can carry (a NUL byte cannot reach a process's argv). */
function checkWord(what: string, word: string): void {
  if (word.includes('\0')) {
    throw new CliUsageError(
      'proxy',
      `${what} ${JSON.stringify(word)} holds a NUL byte, which no command can take`,
    );
  }
}

/** An upstream URL as typed: http(s), a host written out, no credentials in it. */
function checkUrl(url: string): void {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new CliUsageError(
      'proxy',
      `${JSON.stringify(url)} is not an http(s) URL; to run a command, put it after --: mcp-toolkit proxy -- ${url}`,
    );
  }
  // WHATWG URL parsing reads `http:///mcp` as the host "mcp": ask for the host in the URL.
  if (!/^https?:\/\/[^/?#\\]/i.test(url)) {
    throw new CliUsageError(
      'proxy',
      `${JSON.stringify(url)} has no host: write it as https://host[:port]/path`,
    );
  }
  const parsed = new URL(url);
  if (parsed.username !== '' || parsed.password !== '') {
    throw new CliUsageError(
      'proxy',
      `the upstream URL carries credentials (user:password@), which a command line shows to every process list: give them in MCP_PROXY_BEARER_TOKEN or MCP_PROXY_API_KEY instead`,
    );
  }
}

/** The settings `proxy` sets on top of the environment, or `help`. */
export function proxyOverrides(
  args: readonly string[],
): { help: true } | { help: false; overrides: Record<string, string | undefined> } {
  const dashes = args.indexOf('--');
  const own = dashes === -1 ? args : args.slice(0, dashes);
  const command = dashes === -1 ? undefined : args.slice(dashes + 1);
  const parsed = parseCommand('proxy', own, PROXY_OPTIONS, true);
  if (parsed.help) return { help: true };
  const { prefix, host, port, upstreams } = parsed.values as {
    prefix?: string;
    host?: string;
    port?: string;
    upstreams?: string;
  };
  checkFlags('proxy', { host: ['MCP_HTTP_HOST', host], port: ['MCP_HTTP_PORT', port] });
  if (prefix !== undefined && !PREFIX.test(prefix)) {
    throw new CliUsageError(
      'proxy',
      `--prefix ${JSON.stringify(prefix)} is invalid: expected 1 to 63 characters of a tool name (A-Z a-z 0-9 _ . / -), leaving room for the name in its 64`,
    );
  }
  const positionals = parsed.positionals;
  let upstream: Record<string, string>;
  if (upstreams !== undefined) {
    // The list names each upstream and its prefix: a command, a URL or --prefix beside it is a mix-up.
    if (command !== undefined || positionals.length > 0 || prefix !== undefined) {
      throw new CliUsageError(
        'proxy',
        '--upstreams lists every upstream with its own prefix: give no URL, no command after -- and no --prefix with it',
      );
    }
    if (upstreams.trim() === '')
      throw new CliUsageError('proxy', '--upstreams is blank: give the path of a JSON file');
    checkWord('--upstreams', upstreams);
    upstream = {
      MCP_PROXY_UPSTREAMS: upstreams,
      MCP_PROXY_COMMAND: '',
      MCP_PROXY_ARGS: '',
      MCP_PROXY_URL: '',
    };
  } else if (command !== undefined) {
    if (positionals.length > 0) {
      throw new CliUsageError(
        'proxy',
        `give the upstream as a URL or as a command after --, not both (${positionals.join(' ')} before --)`,
      );
    }
    const [executable, ...rest] = command;
    if (executable === undefined || executable.trim() === '') {
      throw new CliUsageError('proxy', 'no command after --: mcp-toolkit proxy -- npx -y some-mcp-server');
    }
    checkWord('the command', executable);
    for (const word of rest) checkWord('the argument', word);
    // A blank MCP_PROXY_URL counts as unset: the environment's own cannot clash with the command.
    upstream = { MCP_PROXY_COMMAND: executable, MCP_PROXY_ARGS: JSON.stringify(rest), MCP_PROXY_URL: '' };
  } else {
    if (positionals.length === 0) {
      throw new CliUsageError(
        'proxy',
        'no upstream: give its streamable-HTTP URL, or a command after -- (mcp-toolkit proxy -- npx -y some-mcp-server)',
      );
    }
    const [url, ...extra] = positionals as [string, ...string[]];
    if (extra.length > 0) {
      throw new CliUsageError(
        'proxy',
        `one URL only; to run a command, put it after --: mcp-toolkit proxy -- ${positionals.join(' ')}`,
      );
    }
    checkUrl(url);
    upstream = { MCP_PROXY_URL: url, MCP_PROXY_COMMAND: '', MCP_PROXY_ARGS: '' };
  }
  return {
    help: false,
    overrides: {
      MCP_TRANSPORT: 'http',
      MCP_PLUGINS: 'proxy',
      MCP_HTTP_HOST: host,
      MCP_HTTP_PORT: port,
      MCP_PROXY_PREFIX: prefix,
      ...upstream,
    },
  };
}

/**
 * Runs `mcp-toolkit proxy`: resolves when the server has stopped.
 *
 * @example
 * await proxyCommand(['--port', '0', '--', 'npx', '-y', '@modelcontextprotocol/server-memory'], process.env, io);
 */
export async function proxyCommand(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: RunIo & { out(text: string): void },
): Promise<void> {
  const parsed = proxyOverrides(args);
  if (parsed.help) {
    io.out(`${USAGE.proxy}\n`);
    return;
  }
  const [{ serve }, { prettyLogs, startupSummary }] = await Promise.all([
    import('../assembly/serve.ts'),
    import('./run.ts'),
  ]);
  const running = await serve({ env, overrides: parsed.overrides, handleSignals: true });
  io.err(startupSummary(running, prettyLogs({ ...env, ...parsed.overrides }, io.isTTY)));
  await running.closed;
}
