/**
 * The MCP clients `mcp-toolkit install` writes to: where each keeps its configuration (per
 * operating system and scope), under which key it lists servers, and the shape of a stdio
 * and of an HTTP entry. From each client's own documentation; docs/quickstart.md has the
 * same table for people who edit the files by hand.
 */
import path from 'node:path';

export type Scope = 'user' | 'project';

/** What the server entry describes: a command the client spawns, or a URL it connects to. */
export type ServerSpec =
  | {
      kind: 'stdio';
      command: string;
      args: string[];
      env: Record<string, string>;
    }
  | { kind: 'http'; url: string; headers: Record<string, string> };

export interface Where {
  platform: NodeJS.Platform;
  /** The user's home folder (HOME, or USERPROFILE on Windows). */
  home: string;
  /** The project folder, for project-scoped files. */
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
}

export interface ClientInfo {
  readonly label: string;
  /** Scopes the client has files for; the first is the default. */
  readonly scopes: readonly Scope[];
  /** The top-level key that maps server names to entries. */
  readonly key: 'mcpServers' | 'servers';
  file(scope: Scope, where: Where): string;
  entry(spec: ServerSpec): Record<string, unknown> | { refused: string };
  /** What to do after the file changed. */
  readonly next: string;
  /**
   * How the file names a secret it does not hold, in the client's own syntax: `env`, a
   * variable of the environment the client starts from (`ref` spells the placeholder);
   * `input`, VS Code's `${input:id}` with an `inputs` entry (VS Code asks once and keeps the
   * value in its secret storage). Absent: the client has no placeholder, so a secret can only
   * be written as it is (`--plain-secret`).
   */
  readonly secrets?: { kind: 'env'; ref(variable: string): string } | { kind: 'input' };
  /** The file is JSONC (comments, trailing commas), as VS Code's are; otherwise strict JSON. */
  readonly jsonc?: boolean;
  /**
   * Why the client cannot find `node` on the user's PATH, when it is known not to: it starts
   * servers with a PATH of its own, so a stdio entry names Node by its absolute path.
   */
  readonly withoutShellPath?: string;
}

/** The per-user application-data folder: Application Support, %APPDATA%, or XDG_CONFIG_HOME. */
function appData(where: Where): string {
  if (where.platform === 'darwin') return path.join(where.home, 'Library', 'Application Support');
  if (where.platform === 'win32') return where.env['APPDATA'] || path.join(where.home, 'AppData', 'Roaming');
  return where.env['XDG_CONFIG_HOME'] || path.join(where.home, '.config');
}

const stdioPlain = (spec: Extract<ServerSpec, { kind: 'stdio' }>) => ({
  command: spec.command,
  args: spec.args,
  env: spec.env,
});

export const CLIENTS: Readonly<Record<string, ClientInfo>> = {
  'claude-desktop': {
    label: 'Claude Desktop',
    scopes: ['user'],
    key: 'mcpServers',
    file: (_scope, where) => path.join(appData(where), 'Claude', 'claude_desktop_config.json'),
    entry: (spec) =>
      spec.kind === 'stdio'
        ? stdioPlain(spec)
        : {
            refused:
              "Claude Desktop's configuration file takes stdio servers only: add a remote server in Claude's settings (Connectors), or install without --url",
          },
    next: 'Quit and reopen Claude Desktop to load it.',
    // A desktop app started from the Dock or a launcher does not read the shell's profile, so a
    // Node from nvm, Homebrew or Volta is not on its PATH ("spawn node ENOENT":
    // modelcontextprotocol/servers#64).
    withoutShellPath:
      "Claude Desktop starts servers without your shell's PATH (a Node from nvm, Homebrew or Volta is not found there)",
  },
  'claude-code': {
    label: 'Claude Code',
    scopes: ['user', 'project'],
    key: 'mcpServers',
    file: (scope, where) =>
      scope === 'project' ? path.join(where.cwd, '.mcp.json') : path.join(where.home, '.claude.json'),
    entry: (spec) =>
      spec.kind === 'stdio'
        ? { type: 'stdio', ...stdioPlain(spec) }
        : { type: 'http', url: spec.url, headers: spec.headers },
    next: 'Start a new Claude Code session; `/mcp` lists the server.',
    // code.claude.com/docs/en/mcp, "Environment variable expansion in .mcp.json".
    secrets: { kind: 'env', ref: (v) => `\${${v}}` },
  },
  cursor: {
    label: 'Cursor',
    scopes: ['user', 'project'],
    key: 'mcpServers',
    file: (scope, where) =>
      scope === 'project'
        ? path.join(where.cwd, '.cursor', 'mcp.json')
        : path.join(where.home, '.cursor', 'mcp.json'),
    entry: (spec) => (spec.kind === 'stdio' ? stdioPlain(spec) : { url: spec.url, headers: spec.headers }),
    next: "Open Cursor's MCP settings to enable the server.",
    // cursor.com/docs/mcp, "Config interpolation".
    secrets: { kind: 'env', ref: (v) => `\${env:${v}}` },
  },
  vscode: {
    label: 'VS Code',
    scopes: ['user', 'project'],
    key: 'servers',
    file: (scope, where) =>
      scope === 'project'
        ? path.join(where.cwd, '.vscode', 'mcp.json')
        : path.join(appData(where), 'Code', 'User', 'mcp.json'),
    entry: (spec) =>
      spec.kind === 'stdio'
        ? { type: 'stdio', ...stdioPlain(spec) }
        : { type: 'http', url: spec.url, headers: spec.headers },
    next: 'In VS Code, run "MCP: List Servers" and start it.',
    // code.visualstudio.com/docs/copilot/customization/mcp-servers, "Input variables for sensitive data".
    secrets: { kind: 'input' },
    jsonc: true,
  },
  windsurf: {
    label: 'Windsurf',
    scopes: ['user'],
    key: 'mcpServers',
    file: (_scope, where) => path.join(where.home, '.codeium', 'windsurf', 'mcp_config.json'),
    entry: (spec) =>
      spec.kind === 'stdio' ? stdioPlain(spec) : { serverUrl: spec.url, headers: spec.headers },
    next: "Refresh the server list in Windsurf's MCP panel.",
    // docs.windsurf.com/windsurf/cascade/mcp, "Config interpolation".
    secrets: { kind: 'env', ref: (v) => `\${env:${v}}` },
  },
};

export const CLIENT_NAMES = Object.keys(CLIENTS);
