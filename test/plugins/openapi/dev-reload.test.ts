/**
 * The openapi plugin in `mcp-toolkit dev`: a change to the local OpenAPI document re-registers
 * the tools, and a connected official client gets notifications/tools/list_changed and then
 * lists the new operation.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, childEnv, REPO_ROOT } from '../../helpers/spawn-server.ts';
import { type Truthy, until as waitUntil, watchNotificationStream } from '../../helpers/until.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'openapi-dev-'));
const specFile = path.join(dir, 'api.json');

/** A minimal OpenAPI 3.1 document with one GET operation per id. */
function writeSpec(operations: string[]): void {
  const paths: Record<string, unknown> = {};
  for (const id of operations) {
    paths[`/${id}`] = {
      get: { operationId: id, summary: `Gets ${id}`, responses: { '200': { description: 'ok' } } },
    };
  }
  writeFileSync(
    specFile,
    JSON.stringify({ openapi: '3.1.0', info: { title: 'Dev API', version: '1' }, paths }),
  );
}
writeSpec(['listPets']);

const child = spawn(process.execPath, [CLI, 'dev', '--port', '0'], {
  cwd: REPO_ROOT,
  env: childEnv({
    MCP_PLUGINS: 'openapi',
    MCP_OPENAPI_SPEC: specFile,
    MCP_OPENAPI_BASE_URL: 'http://127.0.0.1:9/api',
    MCP_LOG_LEVEL: 'info',
  }),
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

async function until<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 30_000,
): Promise<Truthy<T>> {
  try {
    return await waitUntil(check, { timeoutMs: ms, intervalMs: 50, message: what });
  } catch (err) {
    assert.fail(`${(err as Error).message}; stderr:\n${stderr}`);
  }
}

const stream = watchNotificationStream();

test('a change to the local document reloads the tools and clients hear list_changed', {
  timeout: 120_000,
}, async () => {
  const url = await until(
    'the summary line',
    () => /mcp-toolkit listening on (http:\/\/[^\s"]+)/.exec(stderr)?.[1],
  );
  const client = new Client({ name: 'openapi-dev-test', version: '1.0.0' });
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changed++;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: stream.fetch }));
  try {
    const names = async () => (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(await names(), ['listPets']);
    await until("the client's notification stream open", stream.opened);
    writeSpec(['listPets', 'getOwner']);
    await until('a list_changed notification', () => changed > 0);
    await until('the reloaded tools listed', async () => (await names()).length >= 2);
    assert.deepEqual(await names(), ['getOwner', 'listPets']);
  } finally {
    await client.close();
  }
});
