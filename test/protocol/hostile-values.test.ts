/**
 * Values a client sends where the server expects text: an object whose `toString` is not a
 * function (`{"toString": "x"}`) makes `String()` and template literals throw. Such a value in
 * the 2026 envelope's protocol version, a completion reference or a tool name gets a JSON-RPC
 * error naming the problem, never an internal error or silence (found by the stdio fuzzer).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../src/index.ts';
import { TestClient } from '../../src/testing/client/test-client.ts';

const HOSTILE = { toString: 'x', valueOf: 1 };
const V2026 = '2026-07-28';

async function answer(client: TestClient, params: Record<string, unknown>, method: string) {
  const res = (await client.send({ jsonrpc: '2.0', id: 7, method, params })) as
    | { id: unknown; error?: { code: number; message: string }; result?: unknown }
    | undefined;
  assert.ok(res, `${method} is answered`);
  assert.equal(res.id, 7);
  return res;
}

test('an object as the 2026 protocol version is refused as an unsupported version', async () => {
  const client = await TestClient.start({ wire: '2026' });
  try {
    const res = await answer(
      client,
      {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': HOSTILE,
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
      'tools/list',
    );
    assert.notEqual(res.error?.code, ErrorCode.InternalError, JSON.stringify(res));
    assert.ok(res.error, JSON.stringify(res));
  } finally {
    await client.close();
  }
});

test('an object as a completion reference or a tool name is an invalid-params error', async () => {
  const client = await TestClient.start({ wire: '2026' });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': V2026,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  try {
    for (const [method, params] of [
      [
        'completion/complete',
        { ref: { type: 'ref/prompt', name: HOSTILE }, argument: { name: 'a', value: '' } },
      ],
      [
        'completion/complete',
        { ref: { type: 'ref/resource', uri: HOSTILE }, argument: { name: 'a', value: '' } },
      ],
      ['tools/call', { name: HOSTILE, arguments: {} }],
    ] as const) {
      const res = await answer(client, { ...params, _meta: meta }, method);
      assert.equal(res.error?.code, ErrorCode.InvalidParams, `${method}: ${JSON.stringify(res)}`);
    }
  } finally {
    await client.close();
  }
});
