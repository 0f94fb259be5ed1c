/**
 * Copy-ready ways to connect a client to this server, for the landing page: each client's own
 * configuration shape for a remote (streamable HTTP) server. Credentials appear only as
 * placeholders the user replaces; nothing here ever holds a secret.
 */
import type { ServerDescription } from './server-description.ts';

export interface ConnectSnippet {
  readonly id: string;
  readonly client: string;
  /** Where the snippet goes (a file, a terminal). */
  readonly where: string;
  readonly code: string;
}

const KEY_PLACEHOLDER = '<your API key>';

/** A config key for the server: lower-case letters, digits and `-`. */
function serverKey(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'mcp-server'
  );
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** The snippets for a described server, in the order the landing page shows them. */
export function connectSnippets(d: ServerDescription): ConnectSnippet[] {
  const key = serverKey(d.name);
  const url = d.endpoint;
  const apiKey = d.auth.mode === 'api_key';
  const headers = apiKey ? { Authorization: `Bearer ${KEY_PLACEHOLDER}` } : undefined;
  const headerFlag = apiKey ? ` --header "Authorization: Bearer ${KEY_PLACEHOLDER}"` : '';
  return [
    {
      id: 'claude-code',
      client: 'Claude Code',
      where: 'Terminal',
      code: `claude mcp add --transport http ${key} ${url}${headerFlag}`,
    },
    {
      id: 'claude-desktop',
      client: 'Claude Desktop',
      where: 'claude_desktop_config.json (through mcp-remote, which bridges stdio to HTTP)',
      code: json({
        mcpServers: {
          [key]: {
            command: 'npx',
            args: [
              '-y',
              'mcp-remote',
              url,
              ...(apiKey ? ['--header', `Authorization: Bearer ${KEY_PLACEHOLDER}`] : []),
            ],
          },
        },
      }),
    },
    {
      id: 'cursor',
      client: 'Cursor',
      where: '~/.cursor/mcp.json or .cursor/mcp.json',
      code: json({ mcpServers: { [key]: { url, ...(headers ? { headers } : {}) } } }),
    },
    {
      id: 'vscode',
      client: 'VS Code',
      where: '.vscode/mcp.json',
      code: json({ servers: { [key]: { type: 'http', url, ...(headers ? { headers } : {}) } } }),
    },
    {
      id: 'inspector',
      client: 'MCP Inspector',
      where: 'Terminal (lists the tools; drop --cli for the web UI)',
      code: `npx @modelcontextprotocol/inspector --cli ${url} --transport http --method tools/list${headerFlag}`,
    },
    {
      id: 'mcp-toolkit',
      client: 'mcp-toolkit install',
      where: 'Terminal, in an mcp-toolkit checkout (writes the chosen client’s configuration)',
      code: `npx mcp-toolkit install claude-code --url ${url}${headerFlag}`,
    },
  ];
}
