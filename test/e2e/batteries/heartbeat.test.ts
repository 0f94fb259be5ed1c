/**
 * Production features as the official v1 client sees them. Progress heartbeats: with a 3-second request timeout
 * and `resetTimeoutOnProgress`, a 10-second tool completes when the server sends a heartbeat
 * every second, and fails with the client's own -32001 timeout when it does not. Both calls
 * run at once, over streamable HTTP on loopback.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, ErrorCode as SdkErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { connectSdk, type InProcessServer, startServer, textOf } from './helpers.ts';

const PRODUCTION = './test/fixtures/production-plugin.ts';
const TOOL_MS = 10_000;
const CLIENT_TIMEOUT_MS = 3_000;

let beating: InProcessServer;
let quiet: InProcessServer;
let clients: Client[] = [];

before(async () => {
  [beating, quiet] = await Promise.all([
    startServer({ MCP_PLUGINS: PRODUCTION, MCP_PROGRESS_HEARTBEAT_MS: '1000' }),
    startServer({ MCP_PLUGINS: PRODUCTION }),
  ]);
  clients = await Promise.all([connectSdk(beating.url), connectSdk(quiet.url)]);
});
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([beating?.stop(), quiet?.stop()]);
});

test('a 10 s tool outlives a 3 s client timeout with a 1 s heartbeat, and not without', async () => {
  const [withBeat, without] = clients as [Client, Client];
  const progress: number[] = [];
  const call = (client: Client, onprogress: (p: { progress: number }) => void) =>
    client.callTool({ name: 'wait_quietly', arguments: { ms: TOOL_MS } }, undefined, {
      timeout: CLIENT_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      onprogress,
    });
  const [ok, failed] = await Promise.allSettled([
    call(withBeat, (p) => progress.push(p.progress)),
    call(without, () => {}),
  ]);
  assert.equal(ok.status, 'fulfilled', ok.status === 'rejected' ? String(ok.reason) : '');
  assert.equal(textOf(ok.value), 'waited');
  assert.ok(progress.length >= 8, `${progress.length} heartbeats reached the client`);
  assert.equal(failed.status, 'rejected');
  assert.ok(failed.reason instanceof McpError);
  assert.equal(failed.reason.code, SdkErrorCode.RequestTimeout);
});

test('a declared error of a tool with an output schema reaches the v1 client as an isError result', async () => {
  // The v1 client validates structuredContent against the output schema even on errors:
  // the error object travels in _meta, so the answer is not refused.
  const [client] = clients as [Client, Client];
  await client.listTools();
  const result = await client.callTool({ name: 'find', arguments: { id: 'nope' } });
  assert.equal(result.isError, true);
  assert.match(textOf(result) ?? '', /^not_found: No record with id nope\./);
});
