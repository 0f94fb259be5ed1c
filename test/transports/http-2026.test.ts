/**
 * The 2026-07-28 stateless wire over HTTP: the validation ladder's statuses and codes
 * (docs/internals/conformance-fixture.md §3.3), each error echoing the request id, results with `resultType` and
 * caching fields, SSE for a call that emits progress, and no session ever issued. Every
 * message is validated against the 2026-07-28 spec schema.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../src/base/errors.ts';
import {
  buildTestApp,
  expectError,
  jsonReply,
  type Message,
  parseSse,
  post,
  type Response,
  req,
  sseMessages,
  type TestApp,
  V2026,
} from './http-helpers.ts';

const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const VERSION = 'io.modelcontextprotocol/protocolVersion';
const INFO = 'io.modelcontextprotocol/clientInfo';

function envelope(version = V2026, extra: Message = {}): Message {
  return { [VERSION]: version, [CAPS]: {}, [INFO]: { name: 'ladder', version: '1.0.0' }, ...extra };
}

/** A 2026 POST: the envelope in params._meta plus MCP-Protocol-Version, Mcp-Method and Mcp-Name. */
function call2026(
  id: string | number,
  method: string,
  params: Message = {},
  options: { meta?: Message | null; headers?: Record<string, string | undefined> } = {},
): Promise<Response> {
  const withMeta = options.meta === null ? params : { ...params, _meta: options.meta ?? envelope() };
  const headers: Record<string, string> = { 'mcp-protocol-version': V2026, 'mcp-method': method };
  const name = method === 'resources/read' ? params.uri : params.name;
  if (typeof name === 'string') headers['mcp-name'] = name;
  for (const [k, v] of Object.entries(options.headers ?? {})) {
    // An explicit undefined removes a default header, in any letter case.
    for (const h of Object.keys(headers)) if (h === k.toLowerCase()) delete headers[h];
    if (v !== undefined) headers[k] = v;
  }
  return post(t.app, req(id, method, withMeta), { headers });
}

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

describe('2026 results', () => {
  test('server/discover: versions, capabilities, resultType, caching fields, serverInfo; no session', async () => {
    const res = await call2026(1, 'server/discover');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['mcp-session-id'], undefined);
    const result = jsonReply(res, V2026, 'server/discover').result as Message;
    assert.ok((result.supportedVersions as string[]).includes(V2026));
    assert.equal(result.resultType, 'complete');
    assert.equal(result.ttlMs, 0);
    assert.equal(result.cacheScope, 'private');
    assert.equal(
      ((result._meta as Message)['io.modelcontextprotocol/serverInfo'] as Message).name,
      'mcp-toolkit',
    );
  });

  test('tools/list and a plain tools/call answer JSON with resultType', async () => {
    const list = jsonReply(await call2026(2, 'tools/list'), V2026, 'tools/list').result as Message;
    assert.equal(list.resultType, 'complete');
    const res = await call2026(3, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
    assert.equal(res.statusCode, 200);
    const result = jsonReply(res, V2026, 'tools/call').result as Message;
    assert.equal(result.resultType, 'complete');
    assert.deepEqual(result.structuredContent, { sum: 5 });
  });

  test('a call that emits progress answers SSE: progress first, then a result with resultType', async () => {
    const sse = await call2026(
      4,
      'tools/call',
      { name: 'progress', arguments: {} },
      {
        meta: envelope(V2026, { progressToken: 'p4' }),
      },
    );
    assert.equal(sse.statusCode, 200);
    assert.match(String(sse.headers['content-type']), /^text\/event-stream/);
    assert.equal(sse.headers['mcp-session-id'], undefined);
    const messages = sseMessages(parseSse(sse.body), V2026, 'tools/call');
    const progress = messages.filter((m) => m.method === 'notifications/progress');
    assert.equal(progress.length, 3);
    // No logLevel in the envelope: no log frames on the 2026 wire (SEP-2577).
    assert.equal(messages.filter((m) => m.method === 'notifications/message').length, 0);
    const last = messages.at(-1)!;
    assert.equal(last.id, 4);
    assert.equal((last.result as Message).resultType, 'complete');
  });
});

describe('the 2026 validation ladder', () => {
  test('2026 header without an envelope → 400 / -32602 listing what is missing', async () => {
    const error = expectError(
      await call2026(101, 'tools/list', {}, { meta: null }),
      400,
      ErrorCode.InvalidParams,
      101,
      V2026,
    );
    assert.ok(Array.isArray((error.data as Message).missing));
    const noCaps = await call2026(102, 'tools/list', {}, { meta: { [VERSION]: V2026 } });
    expectError(noCaps, 400, ErrorCode.InvalidParams, 102, V2026);
  });

  test('header and _meta versions differ → 400 / -32020', async () => {
    const res = await call2026(104, 'tools/list', {}, { meta: envelope('v999.0.0') });
    expectError(res, 400, ErrorCode.HeaderMismatch, 104, V2026);
  });

  test('v999.0.0 in header and _meta → 400 / -32022 with data.supported and data.requested', async () => {
    const res = await call2026(
      301,
      'tools/list',
      {},
      {
        meta: envelope('v999.0.0'),
        headers: { 'MCP-Protocol-Version': 'v999.0.0' },
      },
    );
    const error = expectError(res, 400, ErrorCode.UnsupportedProtocolVersion, 301, V2026);
    const data = error.data as { supported: string[]; requested: string };
    assert.ok(data.supported.length > 0 && data.supported.includes(V2026));
    assert.equal(data.requested, 'v999.0.0');
  });

  test('an unknown method and the removed ping / initialize / logging/setLevel → 404 / -32601', async () => {
    let id = 401;
    for (const method of [
      'unknown/method',
      'ping',
      'initialize',
      'logging/setLevel',
      'resources/subscribe',
    ]) {
      const res = await call2026(id, method, method === 'resources/subscribe' ? { uri: 'test://hello' } : {});
      expectError(res, 404, ErrorCode.MethodNotFound, id, V2026);
      id++;
    }
  });

  test('Mcp-Method missing, or TOOLS/LIST (case-sensitive) → 400 / -32020', async () => {
    const missing = await call2026(501, 'tools/list', {}, { headers: { 'mcp-method': undefined } });
    expectError(missing, 400, ErrorCode.HeaderMismatch, 501, V2026);
    const upper = await call2026(502, 'tools/list', {}, { headers: { 'mcp-method': 'TOOLS/LIST' } });
    expectError(upper, 400, ErrorCode.HeaderMismatch, 502, V2026);
  });

  test('Mcp-Name missing or different → 400 / -32020; a padded value is accepted', async () => {
    const params = { name: 'echo', arguments: { text: 'x' } };
    const missing = await call2026(601, 'tools/call', params, { headers: { 'mcp-name': undefined } });
    expectError(missing, 400, ErrorCode.HeaderMismatch, 601, V2026);
    const other = await call2026(602, 'tools/call', params, { headers: { 'mcp-name': 'add' } });
    expectError(other, 400, ErrorCode.HeaderMismatch, 602, V2026);
    const padded = await call2026(603, 'tools/call', params, { headers: { 'mcp-name': '  echo  ' } });
    assert.equal(padded.statusCode, 200, padded.body);
    assert.equal((jsonReply(padded, V2026, 'tools/call').result as Message).resultType, 'complete');
    const uri = await call2026(
      604,
      'resources/read',
      { uri: 'test://hello' },
      { headers: { 'mcp-name': 'test://other' } },
    );
    expectError(uri, 400, ErrorCode.HeaderMismatch, 604, V2026);
  });

  test('header names are case-insensitive', async () => {
    const res = await call2026(
      701,
      'tools/call',
      { name: 'echo', arguments: { text: 'x' } },
      {
        headers: {
          'mcp-protocol-version': undefined,
          'mcp-method': undefined,
          'mcp-name': undefined,
          'MCP-PROTOCOL-VERSION': V2026,
          'MCP-METHOD': 'tools/call',
          'mcp-NAME': 'echo',
        },
      },
    );
    assert.equal(res.statusCode, 200, res.body);
    jsonReply(res, V2026, 'tools/call');
  });

  test('a missing clientInfo is served', async () => {
    const res = await call2026(801, 'tools/list', {}, { meta: { [VERSION]: V2026, [CAPS]: {} } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((jsonReply(res, V2026, 'tools/list').result as Message).resultType, 'complete');
  });

  test('an unknown tool is -32602 with HTTP 200', async () => {
    const res = await call2026(901, 'tools/call', { name: 'no_such_tool', arguments: {} });
    expectError(res, 200, ErrorCode.InvalidParams, 901, V2026);
  });
});
