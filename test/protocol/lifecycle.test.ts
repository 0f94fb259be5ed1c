import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../src/base/errors.ts';
import type { TestClientError } from '../../src/testing/client/test-client.ts';
import echoPlugin from '../fixtures/echo-plugin.ts';
import { startClient } from '../helpers/client.ts';

describe('2025 lifecycle', () => {
  for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
    test(`initialize negotiates ${version}`, async () => {
      const client = await startClient({ plugins: [echoPlugin], protocolVersion: version });
      const init = client.initializeResult!;
      assert.equal(init.protocolVersion, version);
      assert.equal((init.serverInfo as { name: string }).name, 'mcp-toolkit');
      assert.ok((init.capabilities as Record<string, unknown>).tools);
      await client.close();
    });
  }

  test('an unsupported version gets our latest', async () => {
    const client = await startClient({ plugins: [echoPlugin], protocolVersion: '1999-01-01' });
    assert.equal(client.initializeResult!.protocolVersion, '2025-11-25');
    await client.close();
  });

  test('requests before initialize are rejected, ping is allowed', async () => {
    const client = await startClient({ plugins: [echoPlugin], skipInitialize: true });
    await assert.rejects(
      client.request('tools/list'),
      (e: TestClientError) => e.code === ErrorCode.InvalidRequest,
    );
    assert.deepEqual(await client.request('ping'), {});
    await client.close();
  });

  test('a second initialize on the same session is refused', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    await assert.rejects(client.initialize(), (e: TestClientError) => e.code === ErrorCode.InvalidRequest);
    await client.close();
  });

  test('ping answers an empty object; notifications get no reply', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    assert.deepEqual(await client.request('ping'), {});
    const before = client.log.length;
    assert.equal(await client.send({ jsonrpc: '2.0', method: 'notifications/whatever' }), undefined);
    await client.drain();
    assert.equal(client.log.filter((e, i) => i >= before && e.direction === 'server').length, 0);
    await client.close();
  });

  test('unknown method -32601 and 2026-only methods are unknown on 2025', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    await assert.rejects(
      client.request('tools/execute'),
      (e: TestClientError) => e.code === ErrorCode.MethodNotFound,
    );
    await assert.rejects(
      client.request('server/discover'),
      (e: TestClientError) => e.code === ErrorCode.MethodNotFound,
    );
    await client.close();
  });

  test('malformed messages: -32600 with the id when it can be read', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    const noVersion = await client.send({ id: 7, method: 'ping' });
    assert.deepEqual(noVersion, {
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32600,
        message:
          noVersion && 'error' in noVersion && !Array.isArray(noVersion) ? noVersion.error.message : '',
      },
    });
    const nullParams = await client.send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: null });
    assert.equal(
      !Array.isArray(nullParams) && nullParams && 'error' in nullParams && nullParams.error.code,
      -32600,
    );
    assert.equal(!Array.isArray(nullParams) && nullParams?.id, 8);
    const notObject = await client.send('hello');
    assert.equal(!Array.isArray(notObject) && notObject && 'error' in notObject && notObject.id, null);
    await client.close();
  });

  test('every response echoes its id and never carries both result and error', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    await client.request('tools/list');
    await client.callTool('add', { a: 1, b: 2 });
    await client.request('nope').catch(() => {});
    for (const entry of client.log.filter((e) => e.direction === 'server')) {
      const m = entry.message as unknown as Record<string, unknown>;
      if ('method' in m) continue;
      assert.equal(m.jsonrpc, '2.0');
      assert.ok(!('result' in m && 'error' in m));
      assert.ok(typeof m.id === 'number');
    }
    await client.close();
  });
});
