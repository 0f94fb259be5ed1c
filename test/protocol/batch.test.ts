import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import echoPlugin from '../fixtures/echo-plugin.ts';
import { startClient } from '../helpers/client.ts';

const call = (id: number, a: number, b: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'add', arguments: { a, b } },
});

describe('JSON-RPC batches follow the negotiated version', () => {
  test('2025-03-26: members run concurrently, notifications are omitted from the reply', async () => {
    const client = await startClient({ plugins: [echoPlugin], protocolVersion: '2025-03-26' });
    const reply = await client.send([
      call(1, 1, 1),
      { jsonrpc: '2.0', method: 'notifications/progress' },
      call(2, 2, 2),
    ]);
    assert.ok(Array.isArray(reply));
    assert.deepEqual(
      reply.map((r) => [r.id, 'result' in r && (r.result.structuredContent as { sum: number }).sum]),
      [
        [1, 2],
        [2, 4],
      ],
    );
    await client.close();
  });

  test('2025-03-26: a batch of notifications gets no reply', async () => {
    const client = await startClient({ plugins: [echoPlugin], protocolVersion: '2025-03-26' });
    assert.equal(await client.send([{ jsonrpc: '2.0', method: 'notifications/progress' }]), undefined);
    await client.close();
  });

  test('2025-03-26: a batch over MCP_MAX_BATCH is -32600', async () => {
    const client = await startClient({
      plugins: [echoPlugin],
      protocolVersion: '2025-03-26',
      env: { MCP_MAX_BATCH: '2' },
    });
    const reply = await client.send([call(1, 1, 1), call(2, 1, 1), call(3, 1, 1)]);
    assert.ok(reply && !Array.isArray(reply) && 'error' in reply);
    assert.equal(reply.error.code, -32600);
    assert.equal(reply.id, null);
    await client.close();
  });

  for (const protocolVersion of ['2025-06-18', '2025-11-25']) {
    test(`${protocolVersion}: batches are -32600`, async () => {
      const client = await startClient({ plugins: [echoPlugin], protocolVersion });
      const reply = await client.send([call(1, 1, 1)]);
      assert.ok(reply && !Array.isArray(reply) && 'error' in reply);
      assert.equal(reply.error.code, -32600);
      await client.close();
    });
  }

  test('an initialize inside a batch is refused', async () => {
    const client = await startClient({ plugins: [echoPlugin], skipInitialize: true });
    const reply = await client.send([
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {} },
      },
    ]);
    assert.ok(reply && !Array.isArray(reply) && 'error' in reply);
    assert.equal(reply.error.code, -32600);
    await client.close();
  });

  test('an empty batch is -32600', async () => {
    const client = await startClient({ plugins: [echoPlugin], protocolVersion: '2025-03-26' });
    const reply = await client.send([]);
    assert.ok(reply && !Array.isArray(reply) && 'error' in reply && reply.error.code === -32600);
    await client.close();
  });
});
