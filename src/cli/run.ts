/**
 * `mcp-toolkit run`: serve() with the flags on top of the environment, and the start-up
 * summary. On a terminal the summary is a few readable lines; anywhere else (a container, a
 * process manager, a pipe) stderr is a log stream, so it is one JSON line like the others.
 */
import { hostname } from 'node:os';
import type { RunningServer } from '../assembly/serve.ts';
import { CliUsageError, checkFlags, parseCommand, USAGE } from './usage.ts';

/** How `run` and `dev` write to stderr, and whether it is a terminal. */
export interface RunIo {
  err(text: string): void;
  isTTY: boolean;
}

const RUN_OPTIONS = {
  cwd: { type: 'string' },
  transport: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
} as const;

/** The log format the logger resolves to (src/telemetry/logger.ts: `auto` is pretty on a terminal). */
export function prettyLogs(env: Readonly<Record<string, string | undefined>>, isTTY: boolean): boolean {
  const format = env['MCP_LOG_FORMAT']?.trim() || 'auto';
  return format === 'pretty' || (format === 'auto' && isTTY);
}

/** One line in pino's JSON shape, for what the CLI itself reports on a log stream. */
export function jsonLine(level: 'info' | 'fatal', msg: string, fields: Record<string, unknown> = {}): string {
  const number = level === 'info' ? 30 : 60;
  return `${JSON.stringify({ level: number, time: Date.now(), pid: process.pid, hostname: hostname(), ...fields, msg })}\n`;
}

function inspectorCommand(url: string): string {
  return `npx @modelcontextprotocol/inspector --transport http --server-url ${url}`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The start-up summary: readable lines with pretty logs, else one JSON log line. */
export function startupSummary(running: RunningServer, pretty: boolean): string {
  if (!running.url) return '';
  const c = running.server.registry.counts;
  const plugins = running.settings.MCP_PLUGINS;
  const inspector = inspectorCommand(running.url);
  if (!pretty) {
    return jsonLine('info', `mcp-toolkit listening on ${running.url}`, {
      url: running.url,
      tools: c.tools,
      resources: c.resources,
      resourceTemplates: c.resourceTemplates,
      prompts: c.prompts,
      plugins,
      inspector,
    });
  }
  return (
    `mcp-toolkit listening on ${running.url}\n` +
    `  ${plural(c.tools, 'tool')}, ${plural(c.resources + c.resourceTemplates, 'resource')}, ${plural(c.prompts, 'prompt')} ` +
    `(plugins: ${plugins.join(', ') || 'none'})\n` +
    `  connect a client: ${inspector}\n`
  );
}

/**
 * Reads `run`'s flags; the HTTP-only ones are refused with the stdio transport instead of
 * being ignored (a `--port` that changes nothing is a mistake the user should hear about).
 */
function runOverrides(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): { help: true } | { help: false; cwd: string | undefined; overrides: Record<string, string | undefined> } {
  const parsed = parseCommand('run', args, RUN_OPTIONS);
  if (parsed.help) return { help: true };
  const { transport, host, port, cwd } = parsed.values as {
    transport?: string;
    host?: string;
    port?: string;
    cwd?: string;
  };
  checkFlags('run', {
    transport: ['MCP_TRANSPORT', transport],
    host: ['MCP_HTTP_HOST', host],
    port: ['MCP_HTTP_PORT', port],
  });
  const effective = (transport ?? env['MCP_TRANSPORT'] ?? '').trim() || 'stdio';
  const httpOnly = [host !== undefined && '--host', port !== undefined && '--port'].filter(Boolean);
  if (effective === 'stdio' && httpOnly.length > 0) {
    const source =
      transport !== undefined
        ? '--transport stdio'
        : env['MCP_TRANSPORT']
          ? 'MCP_TRANSPORT=stdio'
          : 'the default';
    throw new CliUsageError(
      'run',
      `${httpOnly.join(' and ')} ${httpOnly.length > 1 ? 'apply' : 'applies'} to the HTTP transport only, and the transport is stdio (${source}): add --transport http, or leave ${httpOnly.length > 1 ? 'them' : 'it'} out`,
    );
  }
  return {
    help: false,
    cwd,
    overrides: { MCP_TRANSPORT: transport, MCP_HTTP_HOST: host, MCP_HTTP_PORT: port },
  };
}

/**
 * Runs `mcp-toolkit run`: resolves when the server has stopped.
 *
 * @example
 * await runCommand(['--transport', 'http'], process.env, { err: (t) => process.stderr.write(t), isTTY: false });
 */
export async function runCommand(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: RunIo & { out(text: string): void },
): Promise<void> {
  const parsed = runOverrides(args, env);
  if (parsed.help) {
    io.out(`${USAGE.run}\n`);
    return;
  }
  if (parsed.cwd !== undefined) {
    // A client that spawns the server (`mcp-toolkit install`) may not set the working folder,
    // which relative settings (MCP_FILESYSTEM_ROOT=./workspace) and plugin paths depend on.
    try {
      process.chdir(parsed.cwd);
    } catch (err) {
      throw new CliUsageError(
        'run',
        `--cwd ${parsed.cwd}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  }
  const { serve } = await import('../assembly/serve.ts');
  const running = await serve({ env, overrides: parsed.overrides, handleSignals: true });
  io.err(startupSummary(running, prettyLogs({ ...env, ...parsed.overrides }, io.isTTY)));
  await running.closed;
}
