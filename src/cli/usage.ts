/**
 * What each command says for `--help` (and `-h`), and the one way commands parse their
 * arguments: an unknown flag is a usage error (exit 2) that prints that command's usage,
 * `--help` prints it and exits 0. `check` and `test` keep their usage beside their options
 * (src/cli/check.ts, src/cli/test.ts).
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { settingsSchema } from '../config/settings.ts';
import { closestName } from '../config/unknown-settings.ts';

/** A usage mistake: the CLI prints it with the command's usage and exits 2. */
export class CliUsageError extends Error {
  readonly command: string;
  constructor(command: string, message: string) {
    super(message);
    this.name = 'CliUsageError';
    this.command = command;
  }
}

export const USAGE: Readonly<Record<string, string>> = {
  run: `Usage: mcp-toolkit run [--transport stdio|http] [--host H] [--port P] [--cwd DIR]

Starts the server with the MCP_* settings of the environment (docs/configuration.md); flags
override them. Over stdio, stdout carries protocol messages only and logs go to stderr.

Options:
  --transport stdio|http   overrides MCP_TRANSPORT (default stdio)
  --host H                 HTTP only: the address to bind (MCP_HTTP_HOST, default 127.0.0.1)
  --port P                 HTTP only: the port (MCP_HTTP_PORT, default 8000; 0 picks a free one)
  --cwd DIR                run in DIR (relative settings and plugin paths are read from there)
  -h, --help               this text

Exit codes: 0 stopped cleanly, 1 a failure while running, 2 a bad setting, flag or plugin.`,
  dev: `Usage: mcp-toolkit dev [--host H] [--port P]

The development loop: the HTTP server with readable logs; the plugin folders and the modules
MCP_PLUGINS names are watched, and on a change the plugins are reloaded in place (connected
clients get one notifications/tools/list_changed, or the resource or prompt one, per list
that changed; none for a list that lists as before). A plugin that stops compiling is
reported with file and line, and its last good version keeps serving until it is fixed; one
that does not compile at start is reported and watched, the others served meanwhile. Prints
the command that opens the MCP Inspector on the server.

Options:
  --host H                 the address to bind (MCP_HTTP_HOST, default 127.0.0.1)
  --port P                 the port (MCP_HTTP_PORT, default 8000; 0 picks a free one)
  -h, --help               this text`,
  proxy: `Usage: mcp-toolkit proxy [--prefix P] [--host H] [--port N] -- <command> [args...]
       mcp-toolkit proxy [--prefix P] [--host H] [--port N] <url>
       mcp-toolkit proxy [--host H] [--port N] --upstreams <file.json>

Serves another MCP server (the upstream) over our HTTP transport, through the bundled proxy
plugin (docs/proxy.md): its tools, resources, prompts and completions get our auth, scopes,
rate limits, logs, traces and both protocol wires. The upstream is a command run over stdio
(everything after --) or a streamable-HTTP URL. This is \`run --transport http\` with
MCP_PLUGINS=proxy and MCP_PROXY_COMMAND/MCP_PROXY_ARGS (or MCP_PROXY_URL) set from the
arguments; every other setting comes from the environment (MCP_AUTH, MCP_PROXY_ENV,
MCP_PROXY_SCOPES, MCP_PROXY_BEARER_TOKEN, ...). The command gets a minimal environment (PATH,
HOME, ...) plus MCP_PROXY_ENV and MCP_PROXY_SECRET_ENV, not this one. With --upstreams,
several upstreams are served side by side, as listed in a JSON file (MCP_PROXY_UPSTREAMS;
docs/proxy.md, "Several upstreams").

Options:
  --prefix P               put before every upstream tool and prompt name (MCP_PROXY_PREFIX)
  --upstreams F            serve the upstreams listed in the JSON file F (MCP_PROXY_UPSTREAMS)
  --host H                 the address to bind (MCP_HTTP_HOST, default 127.0.0.1)
  --port N                 the port (MCP_HTTP_PORT, default 8000; 0 picks a free one)
  -h, --help               this text

Examples:
  mcp-toolkit proxy -- npx -y @modelcontextprotocol/server-memory
  mcp-toolkit proxy --upstreams upstreams.json
  MCP_AUTH=api_key MCP_API_KEYS=team:change-me-0123456789 mcp-toolkit proxy --port 9000 https://mcp.internal.example/mcp

Exit codes: 0 stopped cleanly, 1 a failure while running, 2 a bad setting, flag or upstream
command that does not start.`,
  doctor: `Usage: mcp-toolkit doctor

Checks the MCP_* settings (secrets masked), the auth mode, each external dependency (OAuth
issuer, Redis, the OTLP endpoint), each plugin and its own checks, and variables that are
not settings; prints one ✓/✗ line per check. Exit codes: 0 all passed, 1 a check failed.

Options:
  -h, --help               this text`,
  login: `Usage: mcp-toolkit login [server-url] [options]

Signs in with OAuth 2.1 (authorization code with PKCE) and stores the access token, which
\`mcp-toolkit check\` and \`mcp-toolkit test\` then send to that server. Without server-url:
MCP_PUBLIC_URL plus MCP_HTTP_PATH.

Options:
  --issuer URL             the authorisation server (default: discovered from the server)
  --client-id ID           a registered client id, used as is
  --client-metadata-url U  the https URL of the Client ID Metadata Document you host: the client
                           id where the server accepts them (else dynamic client registration)
  --print-client-metadata  print the document to host at --client-metadata-url, and exit
  --scope S                a scope to ask for (repeatable)
  --no-browser             print the sign-in URL instead of opening a browser
  --token-file F           where tokens are stored
  -h, --help               this text`,
  init: `Usage: mcp-toolkit init <name> [--dir D]

Scaffolds plugins/<name>/index.ts (a tool with input and output schemas, an example,
annotations and one MCP_<NAME>_* setting) and test/plugins/<name>/<name>.test.ts, which
drives it through TestClient, then regenerates the settings table of the docs.
name: 1-40 lower-case letters, digits and "-", starting with a letter.

Options:
  --dir D                  the mcp-toolkit repository to write into (default: this one)
  -h, --help               this text`,
  'publish-info': `Usage: mcp-toolkit publish-info [options]

Writes server.json for the official MCP Registry: the name from package.json "mcpName", its
version, description, repository and homepage, the npm package run with npx over stdio, and
every MCP_* variable of the core and of the plugins MCP_PLUGINS names, with its description,
whether it is required and whether it is secret (MCP_PLUGINS itself is fixed). The document
is checked against the registry's JSON Schema before it is written. Publish it with the
registry's mcp-publisher.

Options:
  --output FILE            where to write (default server.json)
  --name NAME              the registry name, instead of package.json "mcpName"
  --remote URL             a hosted streamable-HTTP endpoint (repeatable; https only); with
                           MCP_AUTH set it takes an Authorization header
  --package-arg ARG        an argument after the package's command (repeatable)
  --check                  write nothing: exit 1 when the file differs from what would be written
  --stdout                 print the document instead of writing it
  -h, --help               this text

Exit codes: 0 written or up to date, 1 out of date (--check) or invalid, 2 a usage mistake or
a package.json field the registry cannot take.`,
  bundle: `Usage: mcp-toolkit bundle [options]

Builds an MCP Bundle (.mcpb) of the stdio server for desktop clients (one-click install):
package.json, the project's own plugins that MCP_PLUGINS names, the toolkit's command and
the production dependencies as installed, and a manifest whose settings form is generated
from the plugins' settings schemas (secrets as sensitive fields; MCP_PLUGINS is fixed). The
manifest is validated and the bundle packed with @anthropic-ai/mcpb (npm install -D
@anthropic-ai/mcpb).

Options:
  --output FILE            where to write (default <name>-<version>.mcpb)
  --setting NAME           also ask for this core setting in the form (repeatable)
  --display-name NAME      the name the client shows
  -h, --help               this text

Exit codes: 0 packed, 1 the packer refused the manifest, 2 a usage mistake or the packer not
installed.`,
  install: `Usage: mcp-toolkit install <client> [options]

Adds this server to an MCP client's configuration: claude-desktop, claude-code, cursor,
vscode or windsurf. The client's file is merged (other servers are left as they are), the
previous file is kept as <file>.bak, and --dry-run prints the change instead of writing it.
Secrets stay out of the file: a credential header (Authorization, *Key*, *Token*, ...) and an
--env whose name has KEY, TOKEN, SECRET or PASSWORD in it are written as the client's own
placeholder (\${VAR}, \${env:VAR}, or a VS Code input), and the variable to set is printed.

Options:
  --name N                 the server's name in the client (default mcp-toolkit)
  --env NAME=VALUE         an MCP_* setting for the server (repeatable)
  --url URL                add an HTTP server at URL instead of a stdio command
  --header 'Name: value'   with --url: an HTTP header the client sends (repeatable)
  --scope user|project     claude-code, cursor, vscode: the user's file or the project's
                           (default user)
  --plain-secret           write secret values as given (a user's file only, never a
                           project's; Claude Desktop's file has no placeholders)
  --absolute-node          run this Node by its absolute path instead of \`node\` from the
                           PATH the client starts with (the default, which survives a Node
                           upgrade; Claude Desktop, which starts servers without your
                           shell's PATH, always gets the absolute path)
  --dry-run                print the file as it would be written, change nothing
  -h, --help               this text`,
};

export const COMMANDS_HELP = (version: string) => `mcp-toolkit ${version}

Usage:
  mcp-toolkit run [--transport stdio|http] [--host H] [--port P]   start the server
  mcp-toolkit dev [--port P]                                       HTTP server that reloads plugins as you edit them
  mcp-toolkit proxy [--port P] <url | -- command [args...]>        serve another MCP server through ours, over HTTP
  mcp-toolkit doctor                                               check settings, plugins and dependencies
  mcp-toolkit install <client> [--dry-run]                         add the server to Claude Desktop, Claude Code, Cursor, VS Code or Windsurf
  mcp-toolkit init <name> [--dir D]                                scaffold plugins/<name>/ and its test
  mcp-toolkit publish-info [--check]                               write server.json for the MCP Registry
  mcp-toolkit bundle [--output F]                                  an MCP Bundle (.mcpb) of the stdio server
  mcp-toolkit check <url | -- command [args...]>                   conformance report of any MCP server
  mcp-toolkit test <url | -- command [args...]>                    generated live tests against any MCP server
  mcp-toolkit login [server-url]                                   sign in with OAuth 2.1 (PKCE) and store the token
  mcp-toolkit --version | --help
  mcp-toolkit <command> --help                                     a command's own options

Settings come from MCP_* environment variables (see docs/configuration.md); flags override them.`;

/**
 * Parses a command's arguments strictly, with `-h`/`--help` added.
 *
 * @example
 * const parsed = parseCommand('run', args, { port: { type: 'string' } });
 * if (parsed.help) return print(USAGE.run);
 */
export function parseCommand<O extends NonNullable<ParseArgsConfig['options']>>(
  command: string,
  args: readonly string[],
  options: O,
  allowPositionals = false,
) {
  try {
    const parsed = parseArgs({
      args: [...args],
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals,
      strict: true,
      tokens: true,
    });
    // A flag given twice (`--port 1 --port 2`) is ambiguous, not "the last one wins".
    const seen = new Set<string>();
    for (const token of parsed.tokens) {
      if (token.kind !== 'option' || token.name === 'help') continue;
      if ((options[token.name] as { multiple?: boolean } | undefined)?.multiple) continue;
      if (seen.has(token.name)) throw new Error(`--${token.name} is given more than once: give it once`);
      seen.add(token.name);
    }
    const values = parsed.values as Record<string, string | boolean | string[] | boolean[] | undefined>;
    return { values, positionals: parsed.positionals, help: values['help'] === true };
  } catch (err) {
    throw new CliUsageError(command, withSuggestion(err as Error & { code?: string }, options));
  }
}

/** An unknown `--flag` gets the same "did you mean" as an unknown MCP_* variable. */
function withSuggestion(err: Error & { code?: string }, options: Record<string, unknown>): string {
  if (err.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return err.message;
  const flag = /'--([^'=]+)/.exec(err.message)?.[1];
  const known = [...Object.keys(options), 'help'];
  const closest = flag === undefined ? undefined : closestName(flag, known);
  return closest === undefined ? err.message : `${err.message}: did you mean --${closest}?`;
}

/**
 * Checks flags that stand for settings (`--port` for MCP_HTTP_PORT) with the setting's own
 * schema, so a bad value is reported as the flag the user typed, not as a variable they never set.
 *
 * @example
 * checkFlags('run', { port: ['MCP_HTTP_PORT', 'abc'] }); // throws: --port abc is invalid: ...
 */
export function checkFlags(
  command: string,
  flags: Readonly<Record<string, readonly [keyof typeof settingsSchema.shape, string | undefined]>>,
): void {
  for (const [flag, [setting, value]] of Object.entries(flags)) {
    if (value === undefined) continue;
    // A blank value would read as the setting unset (its default): the flag asked for more.
    if (value.trim() === '')
      throw new CliUsageError(command, `--${flag} ${JSON.stringify(value)} is invalid: give it a value`);
    const result = settingsSchema.shape[setting].safeParse(value);
    if (!result.success) {
      const why = result.error.issues.map((i) => i.message).join('; ');
      throw new CliUsageError(command, `--${flag} ${JSON.stringify(value)} is invalid: ${why}`);
    }
  }
}
