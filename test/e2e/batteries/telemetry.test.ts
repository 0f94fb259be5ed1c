/**
 * Tracing, metrics and logs from the real CLI process: `MCP_OTEL_ENDPOINT` points at an
 * OTLP/HTTP receiver on loopback that decodes the protobuf for real. A `tools/call add` is one
 * SERVER span named `tools/call add` with the MCP semantic-convention attributes and the API
 * key id; a `traceparent` in `_meta` makes it a child; an `isError` result is
 * `error.type=tool_error`. Metrics (the duration histogram, refusal and tool-error counts)
 * arrive with the flush on SIGTERM. stderr carries one JSON line per request naming the tool
 * with the span's trace id; stdout carries nothing.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode } from '../../../src/base/errors.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../../helpers/otlp-receiver.ts';
import { type SpawnedHttpServer, spawnHttpServer } from '../../helpers/spawn-server.ts';
import { connectSdk, ECHO_PLUGIN, logLines, post, rpcError, textOf, until } from './helpers.ts';

const KEY = `otel-${randomBytes(16).toString('hex')}`;
const PARENT_TRACE = randomBytes(16).toString('hex');
const PARENT_SPAN = randomBytes(8).toString('hex');
const REFUSED_TRACE = randomBytes(16).toString('hex');

let receiver: OtlpReceiver;
let server: SpawnedHttpServer;
let stdout = '';
let sessionId: string | undefined;

before(async () => {
  receiver = await startOtlpReceiver();
  server = await spawnHttpServer({
    MCP_AUTH: 'api_key',
    MCP_API_KEYS: `otel-client:${KEY}`,
    MCP_OTEL_ENDPOINT: receiver.url,
    MCP_OTEL_SERVICE_NAME: 'batteries-e2e',
    MCP_LOG_LEVEL: 'info',
    MCP_LOG_FORMAT: 'json',
    MCP_PLUGINS: ECHO_PLUGIN,
  });
  server.child.stdout.setEncoding('utf8');
  server.child.stdout.on('data', (chunk: string) => {
    stdout += chunk;
  });
});
after(async () => {
  await server?.stop();
  await receiver?.close();
});

const requestLines = () => logLines(server.stderr()).filter((l) => l.msg === 'mcp request');

describe('telemetry from the real server', () => {
  test('tool calls, a traced call, a failing tool and a refusal', async () => {
    const client: Client = await connectSdk(server.url, { 'x-api-key': KEY });
    try {
      sessionId = (client.transport as StreamableHTTPClientTransport | undefined)?.sessionId;
      assert.ok(sessionId);
      const sum = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
      assert.deepEqual(sum.structuredContent, { sum: 3 });
      const traced = await client.callTool({
        name: 'add',
        arguments: { a: 20, b: 22 },
        _meta: { traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01` },
      });
      assert.deepEqual(traced.structuredContent, { sum: 42 });
      const failed = await client.callTool({ name: 'fail', arguments: {} });
      assert.equal(failed.isError, true);
      assert.match(textOf(failed) ?? '', /RangeError/);
      const unknown = await post(
        server.url,
        { jsonrpc: '2.0', id: 99, method: 'nope/unknown' },
        { 'x-api-key': KEY, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      );
      assert.equal(rpcError(unknown.body)?.code, ErrorCode.MethodNotFound);
    } finally {
      await client.close();
    }
    const refused = await post(
      server.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { traceparent: `00-${REFUSED_TRACE}-${PARENT_SPAN}-01` },
    );
    assert.equal(refused.status, 401);
    // Refused before auth: a foreign Origin, a body of the wrong type, a body too large.
    const origin = await post(
      server.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { origin: 'https://evil.example' },
    );
    assert.equal(origin.status, 403);
    const type = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-api-key': KEY },
      body: 'hi',
    });
    assert.equal(type.status, 415);
    const large = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: 'x'.repeat(1_100_000),
    });
    assert.equal(large.status, 413);
  });

  test('stderr has one JSON line per request naming the tool, with trace id and client id', async () => {
    await until(() => requestLines().filter((l) => l.tool === 'add').length >= 2, 5000, 'two add lines');
    const adds = requestLines().filter((l) => l.tool === 'add');
    for (const line of adds) {
      assert.equal(line.level, 30);
      assert.equal(line.method, 'tools/call');
      assert.equal(line.outcome, 'ok');
      assert.equal(line.clientId, 'otel-client');
      assert.equal(line.sessionId, sessionId);
      assert.equal(typeof line.durationMs, 'number');
      assert.match(String(line.trace_id), /^[0-9a-f]{32}$/);
      assert.match(String(line.span_id), /^[0-9a-f]{16}$/);
      assert.equal(line.trace_flags, '01');
      assert.equal(line.args, undefined, 'tool arguments are not logged by default');
    }
    assert.ok(
      adds.some((l) => l.trace_id === PARENT_TRACE),
      'the traced call logs the caller trace id',
    );
    assert.ok(requestLines().some((l) => l.tool === 'fail' && l.outcome === 'tool_error'));
    assert.equal(stdout, '', 'nothing is written to stdout on HTTP');
  });

  test('SIGTERM exits 0 and flushes spans and metrics to the receiver', async () => {
    assert.equal(await server.stop(), 0);

    const adds = await receiver.waitForSpans((s) => s.name === 'tools/call add', 5000, 2);
    const root = adds.find((s) => s.traceId !== PARENT_TRACE) as ReceivedSpan;
    const child = adds.find((s) => s.traceId === PARENT_TRACE) as ReceivedSpan;
    assert.ok(root && child);
    for (const span of [root, child]) {
      assert.equal(span.kind, 'SERVER');
      assert.equal(span.attributes['mcp.method.name'], 'tools/call');
      assert.equal(span.attributes['gen_ai.tool.name'], 'add');
      assert.equal(span.attributes['gen_ai.operation.name'], 'execute_tool');
      assert.equal(span.attributes['mcp.session.id'], sessionId);
      assert.match(String(span.attributes['jsonrpc.request.id']), /^\d+$/);
      assert.equal(span.attributes['mcp.client.id'], 'otel-client');
      assert.equal(span.attributes['error.type'], undefined);
      assert.equal(span.resource['service.name'], 'batteries-e2e');
    }
    assert.equal(root.parentSpanId, undefined);
    assert.equal(child.parentSpanId, PARENT_SPAN, 'the traceparent in _meta is the parent');
    // The log line and the span share the trace id.
    assert.ok(
      requestLines().some(
        (l) => l.tool === 'add' && l.trace_id === root.traceId && l.span_id === root.spanId,
      ),
    );

    const [failed] = await receiver.waitForSpans((s) => s.name === 'tools/call fail');
    assert.equal(failed?.attributes['error.type'], 'tool_error');
    assert.equal(failed?.status.code, 'ERROR');

    const duration = await receiver.waitForMetric('mcp.server.operation.duration');
    assert.equal(duration.kind, 'histogram');
    assert.equal(duration.unit, 's');
    const addPoint = duration.points.find((p) => p.attributes['gen_ai.tool.name'] === 'add');
    assert.equal(addPoint?.count, 2);

    const refusals = await receiver.waitForMetric('mcp.server.refusals');
    const count = (status: number, reason: string) =>
      refusals.points.find(
        (p) => p.attributes['http.response.status_code'] === status && p.attributes['error.type'] === reason,
      )?.value;
    assert.equal(count(401, 'unauthorized'), 1);
    assert.equal(count(403, 'origin_not_allowed'), 1);
    assert.equal(count(415, 'unsupported_media_type'), 1);
    assert.equal(count(413, 'payload_too_large'), 1);

    const toolErrors = await receiver.waitForMetric('mcp.server.tool_errors');
    assert.equal(toolErrors.points.find((p) => p.attributes['gen_ai.tool.name'] === 'fail')?.value, 1);
    assert.equal(stdout, '');
  });

  test('requests refused at the edge get a span in the caller trace, with error.type and a log line', async () => {
    const refused = receiver.spans.filter((s) => s.attributes['http.response.status_code'] !== undefined);
    const unauthorized = refused.find((s) => s.attributes['error.type'] === 'unauthorized');
    assert.equal(unauthorized?.traceId, REFUSED_TRACE, 'the traceparent header names the trace');
    assert.equal(unauthorized?.parentSpanId, PARENT_SPAN);
    assert.equal(unauthorized?.kind, 'SERVER');
    assert.equal(unauthorized?.name, 'HTTP POST');
    assert.equal(unauthorized?.status.code, 'ERROR');
    assert.match(unauthorized?.status.message ?? '', /API key/i);
    assert.equal(unauthorized?.attributes['client.address'], '127.0.0.1');
    assert.equal(typeof unauthorized?.attributes['client.port'], 'number');
    assert.equal(unauthorized?.attributes['network.protocol.version'], '1.1');
    for (const reason of ['origin_not_allowed', 'unsupported_media_type', 'payload_too_large']) {
      assert.ok(
        refused.some((s) => s.attributes['error.type'] === reason && s.status.code === 'ERROR'),
        reason,
      );
    }
    const line = logLines(server.stderr()).find(
      (l) => l.msg === 'mcp request' && l.outcome === 'refused' && l.trace_id === REFUSED_TRACE,
    );
    assert.equal(line?.span_id, unauthorized?.spanId);
  });

  test('initialize and a request refused by the dispatcher get spans too', async () => {
    const init = receiver.spans.find((s) => s.attributes['mcp.method.name'] === 'initialize');
    assert.equal(init?.attributes['mcp.protocol.version'], '2025-11-25', 'the negotiated version');
    assert.equal(init?.attributes['mcp.session.id'], sessionId);
    assert.equal(init?.attributes['client.address'], '127.0.0.1');
    const unknown = receiver.spans.find((s) => s.attributes['jsonrpc.request.id'] === '99');
    assert.equal(unknown?.attributes['error.type'], String(ErrorCode.MethodNotFound));
    assert.equal(unknown?.name, '_OTHER', 'a made-up method never names a span');
    assert.match(unknown?.status.message ?? '', /Method not found/);
  });
});
