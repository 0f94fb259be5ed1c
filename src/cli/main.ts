/**
 * The `mcp-toolkit` command line: a thin layer over serve() and the test kit.
 * `process.env` is read here (and in src/config/), nowhere else.
 */
import { parseArgs } from 'node:util';
import { InternalCode, ToolkitError } from '../protocol/errors.ts';
import { PACKAGE_VERSION } from '../server.ts';

// Each command's module is imported when that command runs: `run` over stdio (what a desktop
// agent spawns) does not pay for the test kit, the OAuth client or doctor's checks.

const HELP = `mcp-toolkit ${PACKAGE_VERSION}

Usage:
  mcp-toolkit run [--transport stdio|http] [--host H] [--port P]   start the server
  mcp-toolkit doctor                                               check settings, plugins and dependencies
  mcp-toolkit login [server-url] [--issuer URL] [--client-id ID] [--scope S]... [--no-browser] [--token-file F]
                                                                   sign in with OAuth 2.1 (PKCE) and store the token
  mcp-toolkit check <url | -- command [args...]> [--wire 2025|2026|auto] [--json]
                                                                   conformance report of any MCP server
  mcp-toolkit test <url | -- command [args...]> [--strict] [--read-only] [--reporter spec|tap|junit] [--output F]
                                                                   generated live tests against any MCP server
  mcp-toolkit init <name> [--dir D]                                scaffold plugins/<name>/ and its test
  mcp-toolkit --version | --help

Settings come from MCP_* environment variables (see docs/configuration.md); flags override them.`;

/** Exit codes: 0 ok, 1 failure, 2 bad settings or usage. */
export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      console.log(HELP);
      return;
    }
    if (command === '--version' || command === '-v') {
      console.log(PACKAGE_VERSION);
      return;
    }
    if (command === 'run') return await run(rest);
    if (command === 'login') return await loginCommand(rest);
    if (command === 'check' || command === 'test') {
      const io = {
        out: (t: string) => void process.stdout.write(t),
        err: (t: string) => void process.stderr.write(t),
        env: process.env,
      };
      process.exitCode =
        command === 'check'
          ? await (await import('./check.ts')).runCheck(rest, io)
          : await (await import('./test.ts')).runTest(rest, io);
      return;
    }
    if (command === 'init') {
      const { runInit } = await import('./init.ts');
      process.exitCode = await runInit(rest, { out: (l) => console.log(l), err: (l) => console.error(l) });
      return;
    }
    if (command === 'doctor') {
      const { doctor } = await import('./doctor.ts');
      process.exitCode = await doctor(process.env, (line) => console.log(line));
      return;
    }
    console.error(`mcp-toolkit: unknown command "${command}"\n\n${HELP}`);
    process.exitCode = 2;
  } catch (err) {
    if (
      err instanceof ToolkitError &&
      (err.code === InternalCode.InvalidSetting ||
        err.code === InternalCode.PluginNotFound ||
        err.code === InternalCode.PluginInvalid ||
        err.code === InternalCode.InvalidDefinition ||
        err.code === InternalCode.DuplicateName)
    ) {
      console.error(`mcp-toolkit: cannot start:\n${err.message}`);
      process.exit(2);
    }
    if (err instanceof TypeError && (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      console.error(`mcp-toolkit: ${err.message}\n\n${HELP}`);
      process.exit(2);
    }
    if ((err as { code?: string }).code === 'EADDRINUSE') {
      console.error(
        `mcp-toolkit ${command}: ${(err as Error).message}: choose another port (--port or MCP_HTTP_PORT)`,
      );
      process.exit(1);
    }
    // Anything else: one line that says what failed, not a stack trace (set DEBUG=mcp-toolkit for it).
    console.error(`mcp-toolkit ${command}: ${(err as Error).message ?? String(err)}`);
    if (process.env.DEBUG?.includes('mcp-toolkit')) console.error(err);
    process.exit(1);
  }
}

async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      transport: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
    },
    strict: true,
  });
  const { serve } = await import('../serve.ts');
  const running = await serve({
    env: process.env,
    overrides: { MCP_TRANSPORT: values.transport, MCP_HTTP_HOST: values.host, MCP_HTTP_PORT: values.port },
    handleSignals: true,
  });
  if (running.url) {
    const counts = running.server.registry.counts;
    process.stderr.write(
      `mcp-toolkit listening on ${running.url}\n` +
        `  ${plural(counts.tools, 'tool')}, ${plural(counts.resources + counts.resourceTemplates, 'resource')}, ${plural(counts.prompts, 'prompt')} ` +
        `(plugins: ${running.settings.MCP_PLUGINS.join(', ') || 'none'})\n` +
        `  connect a client: npx @modelcontextprotocol/inspector --transport http --server-url ${running.url}\n`,
    );
  }
  await running.closed;
}

async function loginCommand(args: string[]): Promise<void> {
  const { defaultTokenFile, login } = await import('./login.ts');
  const { values, positionals } = parseArgs({
    args,
    options: {
      issuer: { type: 'string' },
      'client-id': { type: 'string' },
      scope: { type: 'string', multiple: true },
      'no-browser': { type: 'boolean', default: false },
      'token-file': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  // Without an argument: this server's own public MCP endpoint (MCP_PUBLIC_URL + MCP_HTTP_PATH).
  const base = process.env.MCP_PUBLIC_URL?.replace(/\/+$/, '');
  const serverUrl = positionals[0] ?? (base ? `${base}${process.env.MCP_HTTP_PATH || '/mcp'}` : undefined);
  const result = await login({
    serverUrl,
    issuer: values.issuer ?? process.env.MCP_OAUTH_ISSUER,
    clientId: values['client-id'],
    scopes: values.scope,
    noBrowser: values['no-browser'],
    tokenFile: values['token-file'] ?? defaultTokenFile(process.env),
  });
  console.error(`Signed in to ${result.issuer} for ${result.serverUrl}; token stored in ${result.tokenFile}`);
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
