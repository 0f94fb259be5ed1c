/**
 * An MCP client for a running server over streamable HTTP, with the official v1 SDK
 * (`@modelcontextprotocol/sdk`): the initialize handshake (the server issues an
 * Mcp-Session-Id), tools/list, a tools/call of the filesystem plugin's `list_files`, then
 * DELETE to end the session.
 *
 *   npm start                                           # in another terminal
 *   node examples/http-client.ts http://127.0.0.1:8000/mcp [--bearer KEY_OR_TOKEN]
 *
 * `--bearer` sends `Authorization: Bearer ...`: an API key (MCP_AUTH=api_key) or an OAuth
 * access token (MCP_AUTH=oauth, e.g. from `mcp-toolkit login`).
 */
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

interface Listing {
  path: string;
  entries: { name: string; type: string; size: number }[];
}

const { values, positionals } = parseArgs({
  options: { bearer: { type: 'string' } },
  allowPositionals: true,
});
const url = new URL(positionals[0] ?? 'http://127.0.0.1:8000/mcp');

const headers: Record<string, string> = {};
if (values.bearer) headers.authorization = `Bearer ${values.bearer}`;
const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
const client = new Client({ name: 'mcp-toolkit-example-http', version: '1.0.0' });

try {
  await client.connect(transport); // POST initialize, then notifications/initialized
  const server = client.getServerVersion();
  console.log(
    `connected to ${server?.name} ${server?.version} at ${url.href} (session ${transport.sessionId})`,
  );

  const { tools } = await client.listTools();
  console.log(`tools: ${tools.map((t) => t.name).join(', ')}`);

  const result = await client.callTool({ name: 'list_files', arguments: { path: '.' } });
  if (result.isError) throw new Error(`list_files failed: ${JSON.stringify(result.content)}`);
  const listing = result.structuredContent as unknown as Listing;
  console.log(`list_files ${listing.path}: ${listing.entries.length} entries`);
  for (const e of listing.entries)
    console.log(`  ${e.type === 'directory' ? `${e.name}/` : e.name} (${e.size} bytes)`);

  await transport.terminateSession(); // DELETE: the server forgets the session now, not at idle expiry
} finally {
  await client.close();
}
