/**
 * `mcp-toolkit dev` as a plugin author uses it: the HTTP server starts with readable logs and
 * prints the Inspector command; an official SDK client stays connected while the plugin's
 * files are edited. A change to any file of the plugin reloads it in place and the client
 * gets notifications/tools/list_changed; a change that does not compile is reported with
 * file and line while the last good version keeps answering; fixing it reloads again.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';
import { type Truthy, until as waitUntil, watchNotificationStream } from '../helpers/until.ts';

// Inside the repository (under the ignored .cache/), so the plugin's `@mcp-toolkit/server`
// import resolves as it does for a plugin of the clone.
const dir = path.join(REPO_ROOT, '.cache', `dev-test-${process.pid}`);
const tools = path.join(dir, 'notes', 'tools.ts');
mkdirSync(path.dirname(tools), { recursive: true });
writeFileSync(
  path.join(dir, 'notes', 'index.ts'),
  `import { definePlugin } from '@mcp-toolkit/server';
import { tools } from './tools.ts';
export default definePlugin({ name: 'dev-notes', register(app) { app.add(...tools()); } });
`,
);
const toolsFile = (names: string[], extra = '') =>
  writeFileSync(
    tools,
    `import { defineTool } from '@mcp-toolkit/server';
export const tools = () => [
${names.map((n) => `  defineTool({ name: '${n}', description: 'Says ${n}' }, async () => '${n}'),`).join('\n')}
];
${extra}`,
  );
toolsFile(['first']);

const child = spawn(process.execPath, [CLI, 'dev', '--port', '0'], {
  cwd: dir,
  env: childEnv({ MCP_PLUGINS: './notes/index.ts', MCP_LOG_LEVEL: 'info' }),
  stdio: ['ignore', 'pipe', 'pipe'],
});
let stderr = '';
child.stderr.setEncoding('utf8').on('data', (c: string) => {
  stderr += c;
});
after(() => {
  child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Polls until `check` holds (bounded), then returns its value. */
async function until<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 20_000,
): Promise<Truthy<T>> {
  try {
    return await waitUntil(check, { timeoutMs: ms, intervalMs: 50, message: what });
  } catch (err) {
    assert.fail(`${(err as Error).message}; stderr:\n${stderr}`);
  }
}

const stream = watchNotificationStream();

const text = (r: unknown) => ((r as { content: { text: string }[] }).content[0] ?? { text: '' }).text;

test('dev reloads the plugin in place and keeps the last good version on a compile error', {
  timeout: 120_000,
}, async () => {
  const url = await until(
    'the summary line',
    () => /mcp-toolkit listening on (http:\/\/[^\s"]+)/.exec(stderr)?.[1],
  );
  assert.match(
    stderr,
    /connect a client: npx @modelcontextprotocol\/inspector --transport http --server-url http/,
  );
  assert.doesNotMatch(stderr, /^\{"level"/m, 'readable logs, not JSON');

  const client = new Client({ name: 'dev-test', version: '1.0.0' });
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changed++;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: stream.fetch }));
  try {
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['first'],
    );

    // An edit to a file the plugin's index imports: the plugin's own files are read again.
    await until("the client's notification stream open", stream.opened);
    toolsFile(['first', 'second']);
    await until('a list_changed notification', () => changed > 0);
    const names = async () => (await client.listTools()).tools.map((t) => t.name);
    await until('the reloaded tools listed', async () => (await names()).length >= 2);
    assert.deepEqual(await names(), ['first', 'second']);
    assert.equal(text(await client.callTool({ name: 'second', arguments: {} })), 'second');

    // A syntax error: reported with file and line; the last good version keeps serving.
    toolsFile(['first', 'second', 'third'], 'const broken = ;\n');
    await until('the compile error', () =>
      /plugins not reloaded[^\n]*notes\/tools\.ts:\d+:\d+: SyntaxError/.test(stderr),
    );
    assert.deepEqual(await names(), ['first', 'second']);
    assert.equal(text(await client.callTool({ name: 'second', arguments: {} })), 'second');

    // Fixed: it reloads again.
    toolsFile(['first', 'third']);
    await until('the fixed plugin reloaded', async () => (await names()).includes('third'));
    assert.deepEqual(await names(), ['first', 'third']);
  } finally {
    await client.close();
  }
});
