/**
 * An MCP client that spawns this repository's server over stdio, with the official v1 SDK
 * (`@modelcontextprotocol/sdk`): the initialize handshake, tools/list, then a tools/call of
 * the filesystem plugin's `list_files`. This is what a desktop agent does with the
 * `command`/`args` of its configuration.
 *
 *   node examples/stdio-client.ts [--root DIR]
 *
 * `--root` is the folder the filesystem plugin serves (MCP_FILESYSTEM_ROOT; default
 * ./workspace). The server's logs go to its stderr, shown here; stdout is the protocol.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const CLI = path.resolve(import.meta.dirname, '..', 'bin', 'mcp-toolkit.js');

interface Listing {
  path: string;
  entries: { name: string; type: string; size: number }[];
}

const { values } = parseArgs({ options: { root: { type: 'string', default: 'workspace' } } });

// The SDK passes only a safe subset of this process's environment (PATH, HOME, ...) plus
// `env`: the server's settings are exactly these.
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [CLI, 'run', '--transport', 'stdio'],
  env: {
    MCP_PLUGINS: 'filesystem',
    MCP_FILESYSTEM_ROOT: path.resolve(values.root),
    MCP_LOG_LEVEL: 'warn',
  },
  stderr: 'inherit',
});
const client = new Client({ name: 'mcp-toolkit-example-stdio', version: '1.0.0' });

try {
  await client.connect(transport); // initialize, then notifications/initialized
  const server = client.getServerVersion();
  console.log(`connected to ${server?.name} ${server?.version} over stdio`);

  const { tools } = await client.listTools();
  console.log(`tools: ${tools.map((t) => t.name).join(', ')}`);

  const result = await client.callTool({ name: 'list_files', arguments: { path: '.' } });
  if (result.isError) throw new Error(`list_files failed: ${JSON.stringify(result.content)}`);
  // With an output schema, the structured result sits beside the text block.
  const listing = result.structuredContent as unknown as Listing;
  console.log(`list_files ${listing.path}: ${listing.entries.length} entries`);
  for (const e of listing.entries)
    console.log(`  ${e.type === 'directory' ? `${e.name}/` : e.name} (${e.size} bytes)`);
} finally {
  await client.close(); // closes stdin: the server exits on EOF
}
