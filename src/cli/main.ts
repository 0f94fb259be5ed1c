/**
 * The `mcp-toolkit` command line: a thin layer over serve() and the test kit.
 * `process.env` is read here (and in src/config/), nowhere else.
 */

import { PACKAGE_VERSION } from '../assembly/server.ts';
import { InternalCode, ToolkitError } from '../base/errors.ts';
import { CliUsageError, COMMANDS_HELP, parseCommand, USAGE } from './usage.ts';

// Each command's module is imported when that command runs: `run` over stdio (what a desktop
// agent spawns) does not pay for the test kit, the OAuth client or doctor's checks.

const HELP = COMMANDS_HELP(PACKAGE_VERSION);

/** Start-up refusals a user fixes in their settings or plugins: exit code 2, like a bad flag. */
const START_UP_CODES: ReadonlySet<string> = new Set([
  InternalCode.InvalidSetting,
  InternalCode.PluginNotFound,
  InternalCode.PluginInvalid,
  InternalCode.InvalidDefinition,
  InternalCode.DuplicateName,
]);

const out = (text: string) => void process.stdout.write(text);
const err = (text: string) => void process.stderr.write(text);

/** Exit codes: 0 ok, 1 failure, 2 bad settings or usage. */
export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  // The server commands write their failures as log lines when stderr is a log stream.
  const server = command === 'run' || command === 'dev' || command === 'proxy';
  try {
    if (command === undefined || command === '--help' || command === '-h') return out(`${HELP}\n`);
    if (command === 'help') {
      const topic = rest[0];
      return out(`${(topic && USAGE[topic]) || HELP}\n`);
    }
    if (command === '--version' || command === '-V' || command === '-v' || command === 'version') {
      return out(`${PACKAGE_VERSION}\n`);
    }
    if (command === 'run') {
      const { runCommand } = await import('./run.ts');
      return await runCommand(rest, process.env, { out, err, isTTY: process.stderr.isTTY === true });
    }
    if (command === 'dev') {
      const { devCommand } = await import('./dev.ts');
      return await devCommand(rest, process.env, { out, err, isTTY: process.stderr.isTTY === true });
    }
    if (command === 'proxy') {
      const { proxyCommand } = await import('./proxy.ts');
      return await proxyCommand(rest, process.env, { out, err, isTTY: process.stderr.isTTY === true });
    }
    if (command === 'login') return await loginCommand(rest);
    if (command === 'check' || command === 'test') {
      const io = { out, err, env: process.env };
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
    if (command === 'publish-info') {
      const { publishInfoCommand } = await import('./publish-info.ts');
      process.exitCode = await publishInfoCommand(rest, process.env, { out, err });
      return;
    }
    if (command === 'bundle') {
      const { bundleCommand } = await import('./bundle.ts');
      process.exitCode = await bundleCommand(rest, process.env, { out, err });
      return;
    }
    if (command === 'install') {
      const { installCommand } = await import('./install.ts');
      process.exitCode = await installCommand(rest, process.env, { out, err });
      return;
    }
    if (command === 'doctor') {
      if (parseCommand('doctor', rest, {}).help) return out(`${USAGE.doctor}\n`);
      const { doctor } = await import('./doctor.ts');
      process.exitCode = await doctor(process.env, (line) => console.log(line));
      return;
    }
    err(`mcp-toolkit: unknown command "${command}"\n\n${HELP}\n`);
    process.exitCode = 2;
  } catch (error) {
    if (error instanceof CliUsageError) {
      const usage = `mcp-toolkit ${error.command} --help`;
      if (server && !(await import('./run.ts')).prettyLogs(process.env, process.stderr.isTTY === true)) {
        await report(server, error.message, { usage });
      } else {
        err(`mcp-toolkit ${error.command}: ${error.message}\n\n${USAGE[error.command] ?? HELP}\n`);
      }
      process.exit(2);
    }
    const code = (error as { code?: string }).code;
    const message = (error as Error).message ?? String(error);
    if (error instanceof ToolkitError && START_UP_CODES.has(error.code)) {
      await report(server, `cannot start:\n${message}`, { code: error.code });
      process.exit(2);
    }
    if (code === 'EADDRINUSE') {
      await report(server, `${message}: choose another port (--port or MCP_HTTP_PORT)`, { code });
      process.exit(1);
    }
    // Anything else: one line that says what failed, not a stack trace (set DEBUG=mcp-toolkit for it).
    await report(server, message, code ? { code } : {});
    if (process.env.DEBUG?.includes('mcp-toolkit')) console.error(error);
    process.exit(1);
  }
}

/** A failure: a JSON log line when a server command's stderr is a log stream, else text. */
async function report(server: boolean, message: string, fields: Record<string, unknown>): Promise<void> {
  if (server) {
    const { jsonLine, prettyLogs } = await import('./run.ts');
    if (!prettyLogs(process.env, process.stderr.isTTY === true))
      return err(jsonLine('fatal', message, fields));
  }
  err(`mcp-toolkit: ${message}\n`);
}

async function loginCommand(args: string[]): Promise<void> {
  const parsed = parseCommand(
    'login',
    args,
    {
      issuer: { type: 'string' },
      'client-id': { type: 'string' },
      'client-metadata-url': { type: 'string' },
      'print-client-metadata': { type: 'boolean', default: false },
      scope: { type: 'string', multiple: true },
      'no-browser': { type: 'boolean', default: false },
      'token-file': { type: 'string' },
    },
    true,
  );
  if (parsed.help) return out(`${USAGE.login}\n`);
  const values = parsed.values as {
    issuer?: string;
    'client-id'?: string;
    'client-metadata-url'?: string;
    'print-client-metadata'?: boolean;
    scope?: string[];
    'no-browser'?: boolean;
    'token-file'?: string;
  };
  const metadataUrl = values['client-metadata-url'];
  const { checkClientMetadataUrl, cliClientMetadata } = await import('./login-client.ts');
  if (metadataUrl !== undefined) {
    try {
      checkClientMetadataUrl(metadataUrl);
    } catch (err) {
      throw new CliUsageError('login', (err as Error).message);
    }
  }
  if (values['print-client-metadata'] === true) {
    if (metadataUrl === undefined) {
      throw new CliUsageError(
        'login',
        '--print-client-metadata needs --client-metadata-url: the https URL the document will be served at',
      );
    }
    return out(`${JSON.stringify(cliClientMetadata(metadataUrl), null, 2)}\n`);
  }
  const { defaultTokenFile, login } = await import('./login.ts');
  // Without an argument: this server's own public MCP endpoint (MCP_PUBLIC_URL + MCP_HTTP_PATH).
  const base = process.env.MCP_PUBLIC_URL?.replace(/\/+$/, '');
  const serverUrl =
    parsed.positionals[0] ?? (base ? `${base}${process.env.MCP_HTTP_PATH || '/mcp'}` : undefined);
  const result = await login({
    serverUrl,
    issuer: values.issuer ?? process.env.MCP_OAUTH_ISSUER,
    clientId: values['client-id'],
    clientMetadataUrl: metadataUrl,
    scopes: values.scope,
    noBrowser: values['no-browser'] === true,
    tokenFile: values['token-file'] ?? defaultTokenFile(process.env),
  });
  const how = {
    'client-id': 'the client id given',
    cimd: 'its Client ID Metadata Document',
    dcr: 'a dynamically registered client',
  }[result.registration];
  console.error(
    `Signed in to ${result.issuer} for ${result.serverUrl} as ${result.clientId} (${how}); token stored in ${result.tokenFile}`,
  );
}
