import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { buildMcpServer, type McpServer } from '../../src/assembly/server.ts';
import { ErrorCode } from '../../src/base/errors.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { parsePluginSettings } from '../../src/plugin/loader.ts';
import type { Exchange } from '../../src/protocol/exchange.ts';
import echoPlugin from '../fixtures/echo-plugin.ts';
import { startClient } from '../helpers/client.ts';
import { assertValidServerMessage } from '../helpers/spec-schema.ts';

const V = '2026-07-28';
const envelope = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});
const headers = (method: string, name?: string, version = V) => ({
  'mcp-protocol-version': version,
  'mcp-method': method,
  ...(name === undefined ? {} : { 'mcp-name': name }),
});

let server: McpServer;
before(async () => {
  server = await buildMcpServer({
    settings: parseSettings({ MCP_LOG_LEVEL: 'silent' }),
    logger: pino({ level: 'silent' }),
    plugins: [{ definition: echoPlugin as never, settings: parsePluginSettings(echoPlugin as never, {}) }],
  });
});
after(() => server.close());

async function http(body: Record<string, unknown>, h: Record<string, string>) {
  const ex: Exchange = { transport: 'http', headers: h };
  return server.dispatcher.handle({ jsonrpc: '2.0', ...body }, ex);
}

describe('2026-07-28 wire', () => {
  test('server/discover: versions, capabilities, caching and server identity', async () => {
    const reply = await http(
      { id: 1, method: 'server/discover', params: { _meta: envelope() } },
      headers('server/discover'),
    );
    assert.equal(reply.status, undefined);
    assertValidServerMessage(V, reply.body, 'server/discover');
    const result = (reply.body as { result: Record<string, unknown> }).result;
    assert.ok((result.supportedVersions as string[]).includes(V));
    assert.equal(result.resultType, 'complete');
    assert.equal(result.ttlMs, 0);
    assert.equal(result.cacheScope, 'private');
    assert.deepEqual(Object.keys(result._meta as object), ['io.modelcontextprotocol/serverInfo']);
  });

  test('every result carries resultType; lists and reads carry ttlMs and cacheScope', async () => {
    const client = await startClient({ plugins: [echoPlugin], wire: '2026' });
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
      const r = await client.request(method);
      assert.equal(r.resultType, 'complete', method);
      assert.equal(r.cacheScope, 'private', method);
    }
    const call = await client.callTool('add', { a: 1, b: 1 });
    assert.equal(call.resultType, 'complete');
    assert.equal(call.ttlMs, undefined);
    await client.close();
  });

  const ladder: [string, Record<string, unknown>, Record<string, string>, number, number][] = [
    [
      'missing envelope with a 2026 header',
      { id: 101, method: 'tools/list', params: {} },
      headers('tools/list'),
      400,
      ErrorCode.InvalidParams,
    ],
    [
      'envelope lacking clientCapabilities',
      { id: 102, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': V } } },
      headers('tools/list'),
      400,
      ErrorCode.InvalidParams,
    ],
    [
      'header and envelope versions differ',
      {
        id: 103,
        method: 'tools/list',
        params: { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' }) },
      },
      headers('tools/list'),
      400,
      ErrorCode.HeaderMismatch,
    ],
    [
      'unsupported version',
      {
        id: 104,
        method: 'tools/list',
        params: { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' }) },
      },
      headers('tools/list', undefined, 'v999.0.0'),
      400,
      ErrorCode.UnsupportedProtocolVersion,
    ],
    [
      'unknown method',
      { id: 105, method: 'unknown/method', params: { _meta: envelope() } },
      headers('unknown/method'),
      404,
      ErrorCode.MethodNotFound,
    ],
    [
      'ping is gone',
      { id: 106, method: 'ping', params: { _meta: envelope() } },
      headers('ping'),
      404,
      ErrorCode.MethodNotFound,
    ],
    [
      'initialize with a 2026 envelope',
      { id: 107, method: 'initialize', params: { _meta: envelope() } },
      headers('initialize'),
      404,
      ErrorCode.MethodNotFound,
    ],
    [
      'logging/setLevel is gone',
      { id: 108, method: 'logging/setLevel', params: { level: 'info', _meta: envelope() } },
      headers('logging/setLevel'),
      404,
      ErrorCode.MethodNotFound,
    ],
    [
      'Mcp-Method missing',
      { id: 109, method: 'tools/list', params: { _meta: envelope() } },
      { 'mcp-protocol-version': V },
      400,
      ErrorCode.HeaderMismatch,
    ],
    [
      'Mcp-Method differs in case',
      { id: 110, method: 'tools/list', params: { _meta: envelope() } },
      headers('TOOLS/LIST'),
      400,
      ErrorCode.HeaderMismatch,
    ],
    [
      'Mcp-Name differs',
      {
        id: 111,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'x' }, _meta: envelope() },
      },
      headers('tools/call', 'add'),
      400,
      ErrorCode.HeaderMismatch,
    ],
  ];
  for (const [name, body, h, status, code] of ladder) {
    test(`ladder: ${name} → ${status} / ${code}, id echoed`, async () => {
      const reply = await http(body, h);
      assert.equal(reply.status, status);
      const res = reply.body as { id: unknown; error: { code: number } };
      assert.equal(res.error.code, code);
      assert.equal(res.id, body.id);
      assertValidServerMessage(V, reply.body);
    });
  }

  test('unsupported version data lists what we support and echoes the request', async () => {
    const reply = await http(ladder[3]![1], ladder[3]![2]);
    assert.deepEqual((reply.body as { error: { data: unknown } }).error.data, {
      supported: [V],
      requested: 'v999.0.0',
    });
  });

  test('padded Mcp-Name and a missing clientInfo are accepted', async () => {
    const reply = await http(
      { id: 5, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' }, _meta: envelope() } },
      headers('tools/call', '  echo  '),
    );
    assert.equal(reply.status, undefined);
    assert.equal(
      (reply.body as unknown as { result: { content: { text: string }[] } }).result.content[0]!.text,
      'x',
    );
  });

  test('over stdio the envelope is checked without headers; 2025 and 2026 share the stream', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    const modern = await client.send({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/list',
      params: { _meta: envelope() },
    });
    assert.ok(
      modern && !Array.isArray(modern) && 'result' in modern && modern.result.resultType === 'complete',
    );
    const legacy = await client.request('tools/list');
    assert.equal(legacy.resultType, undefined);
    const bad = await client.send({
      jsonrpc: '2.0',
      id: 10,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': V } },
    });
    assert.ok(bad && !Array.isArray(bad) && 'error' in bad && bad.error.code === ErrorCode.InvalidParams);
    await client.close();
  });

  test('input-required: sealed state, retry completes, tampering is -32602, missing capability is -32021', async () => {
    const client = await startClient({
      plugins: [echoPlugin],
      wire: '2026',
      onElicit: async () => ({ action: 'accept', content: { name: 'Ada' } }),
    });
    const first = await client.request('tools/call', { name: 'ask_name', arguments: {} });
    assert.equal(first.resultType, 'input_required');
    assert.deepEqual(Object.keys(first.inputRequests as object), ['name']);
    assert.equal(typeof first.requestState, 'string');
    const done = await client.request('tools/call', {
      name: 'ask_name',
      arguments: {},
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
      requestState: first.requestState,
    });
    assert.equal((done.content as { text: string }[])[0]!.text, 'Hello, Ada (state {"round":1})');
    await assert.rejects(
      client.request('tools/call', {
        name: 'ask_name',
        arguments: {},
        inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
        requestState: `${first.requestState}-TAMPERED`,
      }),
      (e: { code: number }) => e.code === ErrorCode.InvalidParams,
    );
    const reply = await http(
      { id: 12, method: 'tools/call', params: { name: 'ask_name', arguments: {}, _meta: envelope() } },
      headers('tools/call', 'ask_name'),
    );
    assert.equal(reply.status, 400);
    assert.deepEqual((reply.body as { error: { code: number; data: unknown } }).error, {
      code: ErrorCode.MissingRequiredClientCapability,
      message: (reply.body as { error: { message: string } }).error.message,
      data: { requiredCapabilities: { elicitation: {} } },
    });
    assertValidServerMessage(V, reply.body);
    await client.close();
  });

  test('the same handler asks through real server-to-client requests on 2025', async () => {
    const client = await startClient({
      plugins: [echoPlugin],
      onElicit: async (params) => {
        assert.equal(params.message, 'Your name?');
        return { action: 'accept', content: { name: 'Lin' } };
      },
    });
    assert.equal(await client.callText('ask_name'), 'Hello, Lin (state {"round":1})');
    await client.close();
  });
});
