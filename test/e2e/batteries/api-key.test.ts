/**
 * `MCP_AUTH=api_key` on the real CLI process: a missing or wrong key is 401 with a
 * `WWW-Authenticate` challenge and a JSON-RPC error body; the right key opens the server in
 * `X-API-Key` and as `Authorization: Bearer`; the key id names the caller in the tool's ctx
 * and in the logs, and no key (right or wrong) ever reaches stderr.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../../src/base/errors.ts';
import { type SpawnedHttpServer, spawnHttpServer } from '../../helpers/spawn-server.ts';
import {
  BATTERIES_PLUGIN,
  callTool2026,
  connectSdk,
  ECHO_PLUGIN,
  logLines,
  post,
  rpcError,
  textOf,
  until,
} from './helpers.ts';

const ALICE_KEY = `alice-${randomBytes(16).toString('hex')}`;
const BOB_KEY = `bob-${randomBytes(16).toString('hex')}`;
const WRONG_KEY = `wrong-${randomBytes(16).toString('hex')}`;
const ARG_SECRET = `arg-${randomBytes(16).toString('hex')}`;
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

let server: SpawnedHttpServer;

before(async () => {
  server = await spawnHttpServer({
    MCP_AUTH: 'api_key',
    MCP_API_KEYS: `alice:${ALICE_KEY},bob:${BOB_KEY}`,
    MCP_PLUGINS: `${ECHO_PLUGIN},${BATTERIES_PLUGIN}`,
    // Debug: the most the server ever logs, so the "never logged" check covers it all.
    MCP_LOG_LEVEL: 'debug',
    MCP_LOG_FORMAT: 'json',
    MCP_LOG_TOOL_ARGS: 'true',
  });
});
after(() => server.stop());

/** The request line of the JSON-RPC request `id` (waits for stderr to deliver it). */
async function requestLine(id: number): Promise<Record<string, unknown>> {
  const find = () => logLines(server.stderr()).find((l) => l.msg === 'mcp request' && l.requestId === id);
  await until(() => find() !== undefined, 5000, `the request line of id ${id}`);
  return find() as Record<string, unknown>;
}

function assertUnauthorized(reply: Awaited<ReturnType<typeof post>>, challenge: RegExp): void {
  assert.equal(reply.status, 401);
  assert.match(reply.headers.get('www-authenticate') ?? '', challenge);
  assert.match(reply.headers.get('content-type') ?? '', /application\/json/);
  const body = reply.body as { jsonrpc?: string; id?: unknown };
  assert.equal(body.jsonrpc, '2.0');
  assert.equal(body.id, null, 'the edge answers before reading the body: id null');
  assert.equal(rpcError(reply.body)?.code, ErrorCode.Unauthorized);
}

describe('api_key on the real server', () => {
  test('no key: 401, a Bearer challenge without an error code, and a JSON-RPC error body', async () => {
    const reply = await post(server.url, LIST);
    assertUnauthorized(reply, /^Bearer realm="mcp"$/);
  });

  test('a wrong key: 401 with error="invalid_token", in either header', async () => {
    assertUnauthorized(await post(server.url, LIST, { 'x-api-key': WRONG_KEY }), /error="invalid_token"/);
    assertUnauthorized(
      await post(server.url, LIST, { authorization: `Bearer ${WRONG_KEY}` }),
      /error="invalid_token"/,
    );
    // Another scheme is no credential at all.
    assertUnauthorized(await post(server.url, LIST, { authorization: `Basic ${ALICE_KEY}` }), /^Bearer/);
  });

  test('the right key in X-API-Key opens the server for the official SDK client', async () => {
    const client = await connectSdk(server.url, { 'x-api-key': ALICE_KEY });
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'echo'));
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'hi');
      const me = await client.callTool({ name: 'whoami', arguments: {} });
      assert.deepEqual(me.structuredContent, { clientId: 'alice', scopes: [] });
    } finally {
      await client.close();
    }
  });

  test('the right key as Authorization: Bearer works too, and names its own client', async () => {
    const client = await connectSdk(server.url, { authorization: `Bearer ${BOB_KEY}` });
    try {
      const me = await client.callTool({ name: 'whoami', arguments: {} });
      assert.deepEqual(me.structuredContent, { clientId: 'bob', scopes: [] });
      // API keys are unscoped: a scoped tool is open to them.
      assert.equal(
        textOf(await client.callTool({ name: 'write_note', arguments: { text: 'n' } })),
        'saved: n',
      );
    } finally {
      await client.close();
    }
  });

  test('MCP_LOG_TOOL_ARGS=true puts the arguments on the request line, secret-looking keys redacted', async () => {
    const reply = await callTool2026(
      server.url,
      7,
      'echo',
      { text: 'visible', password: ARG_SECRET },
      { 'x-api-key': ALICE_KEY },
    );
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const line = await requestLine(7);
    assert.deepEqual(line.args, { text: 'visible', password: '[redacted]' });
  });

  test('the logs name the key ids and never contain a key', async () => {
    await until(
      () => logLines(server.stderr()).some((l) => l.clientId === 'bob' && l.tool === 'write_note'),
      5000,
      "bob's request line",
    );
    const stderr = server.stderr();
    for (const secret of [ALICE_KEY, BOB_KEY, WRONG_KEY, ARG_SECRET]) {
      assert.ok(!stderr.includes(secret), 'a key appears in the logs');
      // Not even a recognisable part of one.
      assert.ok(!stderr.includes(secret.slice(-16)), 'part of a key appears in the logs');
    }
    const lines = logLines(stderr);
    const requests = lines.filter((l) => l.msg === 'mcp request');
    assert.ok(requests.some((l) => l.clientId === 'alice' && l.tool === 'echo' && l.outcome === 'ok'));
    assert.ok(
      requests.some((l) => l.outcome === 'refused'),
      'refusals are logged',
    );
  });
});
