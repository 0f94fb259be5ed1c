/**
 * The handle's `connect()` (docs/embedding.md): a client in the same process, through the
 * public `createServer()` only. On a server that also listens on HTTP, the in-process client
 * gets its 2025 session and its 2026 calls answered, its identity reaches the handler, a bad
 * message gets its JSON-RPC error and the connection serves on, and `close()` cancels the
 * call still running for it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import {
  createServer,
  definePlugin,
  defineTool,
  ErrorCode,
  type InProcessConnection,
  type JsonObject,
  type RunningServer,
} from '../../src/index.ts';
import { VERSION_2026 } from '../../src/protocol.ts';
import { until } from '../helpers/until.ts';

const waits: string[] = [];
const plugin = definePlugin({
  name: 'connected',
  register(app) {
    app.add(
      defineTool(
        { name: 'whoami', description: 'The caller', input: z.object({}) },
        async (_args, ctx) => ctx.identity?.clientId ?? 'nobody',
      ),
      defineTool(
        { name: 'wait', description: 'Waits until cancelled', input: z.object({}) },
        (_args, ctx) =>
          new Promise<string>((resolve) => {
            waits.push('started');
            ctx.signal.addEventListener('abort', () => {
              waits.push('aborted');
              resolve('aborted');
            });
          }),
      ),
    );
  },
});

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': VERSION_2026,
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A connection that keeps what the server sends. */
function connectTo(running: RunningServer, identity?: { clientId: string; scopes: string[] }) {
  const received: JsonObject[] = [];
  const connection: InProcessConnection = running.connect({
    onMessage: (m) => {
      for (const one of Array.isArray(m) ? m : [m]) received.push(one as unknown as JsonObject);
    },
    ...(identity ? { identity } : {}),
  });
  const answer = (id: number): JsonObject => {
    const found = received.find((m) => m.id === id && !('method' in m));
    assert.ok(found, `no answer to ${id}: ${JSON.stringify(received)}`);
    return found;
  };
  return { connection, received, answer };
}

describe('connect(): a client in the same process', () => {
  let running: RunningServer;
  before(async () => {
    running = await createServer({
      plugins: [plugin],
      settings: { MCP_LOG_LEVEL: 'silent', MCP_HTTP_HOST: '127.0.0.1', MCP_HTTP_PORT: 0 },
      transport: 'http',
    });
  });
  after(() => running.close());

  test('a 2025 session: initialize, then a tool call, answered through onMessage', async () => {
    const { connection, answer } = connectTo(running);
    await connection.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    assert.equal((answer(1).result as JsonObject).protocolVersion, '2025-11-25');
    await connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await connection.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'whoami', arguments: {} },
    });
    assert.deepEqual((answer(2).result as JsonObject).content, [{ type: 'text', text: 'nobody' }]);
    connection.close();
  });

  test('2026 requests need no session; the identity given is the one the handler sees', async () => {
    const { connection, answer } = connectTo(running, { clientId: 'ada', scopes: [] });
    await connection.send({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'whoami', arguments: {}, _meta: ENVELOPE },
    });
    const result = answer(7).result as JsonObject;
    assert.equal(result.resultType, 'complete');
    assert.deepEqual(result.content, [{ type: 'text', text: 'ada' }]);
    connection.close();
  });

  test('a bad message gets its JSON-RPC error, and the connection serves on', async () => {
    const { connection, answer } = connectTo(running);
    await connection.send({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: null });
    assert.ok(answer(3).error);
    await connection.send({ jsonrpc: '2.0', id: 4, method: 'no/such/method', params: { _meta: ENVELOPE } });
    assert.equal((answer(4).error as JsonObject).code, ErrorCode.MethodNotFound);
    await connection.send({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: ENVELOPE } });
    assert.ok(((answer(5).result as JsonObject).tools as unknown[]).length === 2);
    connection.close();
  });

  test('close() cancels the call still running for the client', async () => {
    const { connection } = connectTo(running);
    const sent = connection.send({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'wait', arguments: {}, _meta: ENVELOPE },
    });
    await until(() => waits.includes('started'), { message: 'the call never started' });
    connection.close();
    await sent;
    assert.deepEqual(waits, ['started', 'aborted']);
  });
});
