/**
 * The request's record on the real dispatcher, in process: built once per request and frozen,
 * and the very object the request context (`ctx.record` and the facts the handler reads), the
 * span and the request log line read. And what stays off the record: the handler's
 * `ctx.sessionId` is the 2025 session only, while the record names the exchange's session.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { buildMcpServer } from '../../src/assembly/server.ts';
import type { JsonRpcMessage } from '../../src/base/jsonrpc.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { definePlugin, defineTool } from '../../src/index.ts';
import type { RequestObserver } from '../../src/protocol/observer.ts';
import { RequestContext } from '../../src/protocol/request-context.ts';
import { type RequestRecord, requestRecord } from '../../src/protocol/request-record.ts';
import { REV2025 } from '../../src/protocol/wires/classify.ts';
import { createLogger } from '../../src/telemetry/logger.ts';
import { createRequestObserver } from '../../src/telemetry/request-observer.ts';
import {
  NOOP_REQUEST_SPAN,
  NOOP_TELEMETRY,
  type RequestSpanInfo,
  type Telemetry,
} from '../../src/telemetry/tracing.ts';
import { createConnection } from '../../src/transports/connection.ts';

const V2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1.0.0' },
};

function memoryLogger() {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  const logger = createLogger({ level: 'info', format: 'json', destination: sink });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'mcp request');
  return { logger, lines };
}

/** A server whose observer, span starts and tool handler note what each of them was given. */
async function observedServer() {
  const contexts: RequestContext[] = [];
  const observed: RequestRecord[] = [];
  const spans: RequestSpanInfo[] = [];
  // Enabled, so the observer starts a span per request; the span itself records nothing.
  const telemetry: Telemetry = {
    ...NOOP_TELEMETRY,
    enabled: true,
    startRequestSpan(info) {
      spans.push(info);
      return NOOP_REQUEST_SPAN;
    },
  };
  const { logger, lines } = memoryLogger();
  const inner = createRequestObserver({ telemetry, logger });
  const observe: RequestObserver = {
    start(record) {
      observed.push(record);
      return inner.start(record);
    },
  };
  const plugin = definePlugin({
    name: 'looks',
    register(app) {
      app.add(
        defineTool({ name: 'look', description: 'Notes its context' }, async (_args, ctx) => {
          assert.ok(ctx instanceof RequestContext);
          contexts.push(ctx);
          return 'seen';
        }),
      );
    },
  });
  const server = await buildMcpServer({
    settings: parseSettings({ MCP_PLUGINS: '' }),
    logger,
    telemetry,
    observe,
    plugins: [{ definition: plugin as never, settings: {} }],
  });
  return { server, contexts, observed, spans, lines };
}

describe('the request record', () => {
  test('built once per request and frozen: the context, the span and the log line read that one object', async () => {
    const { server, contexts, observed, spans, lines } = await observedServer();
    const identity = { clientId: 'alice', scopes: [] };
    for (const id of [1, 2]) {
      const reply = await server.dispatcher.handle(
        {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'look', arguments: { n: id }, _meta: V2026 },
        },
        { transport: 'stdio', identity },
      );
      assert.ok(reply.body && 'result' in reply.body, JSON.stringify(reply.body));
    }
    assert.equal(observed.length, 2);
    assert.notEqual(observed[0], observed[1], 'each request has its own record');
    for (const [i, record] of observed.entries()) {
      assert.equal(spans[i], record, 'the span reads the record itself');
      const ctx = contexts[i];
      assert.ok(ctx);
      assert.equal(ctx.record, record, 'the context reads the record itself');
      assert.deepEqual(
        [ctx.requestId, ctx.method, ctx.wire, ctx.protocolVersion, ctx.identity, ctx.clientInfo],
        [i + 1, 'tools/call', '2026', '2026-07-28', identity, V2026['io.modelcontextprotocol/clientInfo']],
      );
      assert.equal(ctx.meta, record.meta);
      assert.equal(ctx.clientCapabilities, record.clientCapabilities);
      assert.deepEqual(
        [record.targetName, record.target?.kind, record.targetKnown, record.args, record.transport],
        ['look', 'tool', true, { n: i + 1 }, 'stdio'],
      );
      // The target carries the definition itself, resolved when the record was made.
      assert.equal(record.target?.kind === 'tool' ? record.target.def : null, server.registry.tool('look'));
    }
    const logged = lines();
    assert.equal(logged.length, 2);
    for (const [i, line] of logged.entries()) {
      const record = observed[i];
      assert.ok(record);
      assert.deepEqual(
        [line.method, line.tool, line.requestId, line.clientId, line.outcome],
        [record.method, record.targetName, record.requestId, record.identity?.clientId, 'ok'],
      );
    }
  });

  test('over stdio the record names the connection session on either wire; ctx.sessionId is the 2025 session only', async () => {
    const { server, contexts, observed, lines } = await observedServer();
    const sent: JsonRpcMessage[] = [];
    const connection = createConnection(server, (m) => sent.push(...(Array.isArray(m) ? m : [m])));
    await connection.receive({
      jsonrpc: '2.0',
      id: 'modern',
      method: 'tools/call',
      params: { name: 'look', _meta: V2026 },
    });
    await connection.receive({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    });
    await connection.receive({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await connection.receive({
      jsonrpc: '2.0',
      id: 'legacy',
      method: 'tools/call',
      params: { name: 'look' },
    });
    connection.close();
    assert.equal(sent.filter((m) => 'result' in m).length, 3, JSON.stringify(sent));

    const [modern, legacy] = contexts;
    assert.ok(modern && legacy);
    // 2026 has no sessions: a task created here is not bound to the connection (tasks/owner.ts).
    assert.equal(modern.sessionId, undefined);
    assert.equal(modern.record.sessionId, connection.sessionId);
    assert.equal(legacy.sessionId, connection.sessionId);
    assert.equal(legacy.record.sessionId, connection.sessionId);
    assert.deepEqual(
      [legacy.wire, legacy.protocolVersion, legacy.clientInfo],
      ['2025', '2025-11-25', { name: 'c', version: '1' }],
    );
    assert.deepEqual(
      observed.map((r) => [r.requestId, r.sessionId]),
      [
        ['modern', connection.sessionId],
        ['init', connection.sessionId],
        ['legacy', connection.sessionId],
      ],
    );
    assert.deepEqual(
      lines().map((l) => [l.requestId, l.sessionId]),
      [
        ['modern', connection.sessionId],
        ['init', connection.sessionId],
        ['legacy', connection.sessionId],
      ],
    );
  });
});

describe('the record of what a client sent', () => {
  test('a target that is not a string is no target (it would otherwise reach span attributes)', () => {
    const ex = { transport: 'http' as const, session: undefined, identity: undefined } as never;
    const registry = { tool: () => undefined, prompt: () => undefined, resolveResource: () => undefined };
    const read = (params: Record<string, unknown>) =>
      requestRecord({ jsonrpc: '2.0', id: 1, method: 'resources/read', params }, ex, REV2025, registry)
        .targetName;
    assert.equal(read({ uri: 'file:///a' }), 'file:///a');
    assert.equal(read({ uri: { nested: true } }), undefined);
    assert.equal(read({ uri: 42 }), undefined);
  });
});
