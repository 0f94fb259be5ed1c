/**
 * Request spans through the OpenTelemetry API, exported by the Node SDK we start to a real
 * OTLP/HTTP receiver on loopback: attributes, parents (params._meta, the ambient context, the
 * HTTP traceparent header) and links, status, sampling, the handler's context, metrics.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { context, propagation, trace } from '@opentelemetry/api';
import { ErrorCode, InternalCode } from '../../src/base/errors.ts';
import { parseTracingConfig } from '../../src/telemetry/otel-settings.ts';
import { createTelemetry, NOOP_TELEMETRY, type Telemetry } from '../../src/telemetry/tracing.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const PARENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT_SPAN = 'b7ad6b7169203331';
const OTHER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const OTHER_SPAN = '00f067aa0ba902b7';
const SETTINGS = {
  MCP_OTEL_ENDPOINT: undefined,
  MCP_OTEL_SERVICE_NAME: undefined,
  MCP_OTEL_SAMPLE_RATIO: undefined,
  MCP_OTEL_METRIC_ATTRIBUTES: undefined as 'required' | 'recommended' | undefined,
  MCP_SERVER_NAME: 'mcp-toolkit',
};

let receiver: OtlpReceiver;
let serial = 0;

before(async () => {
  receiver = await startOtlpReceiver();
});
after(() => receiver.close());

/** Telemetry (our own SDK) with its own service name, so each test finds its own spans. */
async function telemetryFor(
  t: { after(fn: () => unknown): void },
  env: Record<string, string> = {},
  settings: Partial<typeof SETTINGS> = {},
) {
  const service = `svc-${process.pid}-${++serial}`;
  const config = parseTracingConfig(
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: service,
      OTEL_BSP_SCHEDULE_DELAY: '20',
      ...env,
    },
    { ...SETTINGS, ...settings },
    '1.2.3',
  );
  const telemetry = await createTelemetry({ config });
  t.after(() => telemetry.shutdown(2000));
  const mine = (s: ReceivedSpan) => s.resource['service.name'] === service;
  return { telemetry, service, mine };
}

describe('request spans from the OpenTelemetry API', () => {
  test('a SERVER span per tools/call with the MCP semantic-convention attributes', async (t) => {
    const { telemetry, mine } = await telemetryFor(t);
    assert.equal(telemetry.enabled, true);
    const span = telemetry.startRequestSpan({
      method: 'tools/call',
      targetName: 'read_file',
      targetKnown: true,
      requestId: 7,
      sessionId: 'session-1',
      protocolVersion: '2025-06-18',
      identity: { clientId: 'alice', scopes: [] },
      transport: 'http',
      address: '127.0.0.1',
      port: 50123,
      httpVersion: '1.1',
    });
    span.span.setAttribute('app.extra', 'yes');
    span.end({ isError: false });
    await telemetry.shutdown(2000);

    const [received] = await receiver.waitForSpans(mine, 5000);
    assert.ok(received);
    assert.equal(received.name, 'tools/call read_file');
    assert.equal(received.kind, 'SERVER');
    assert.equal(received.traceId, span.logFields?.trace_id);
    assert.equal(received.spanId, span.logFields?.span_id);
    assert.equal(span.logFields?.trace_flags, '01');
    assert.equal(received.parentSpanId, undefined);
    assert.equal(received.status.code, 'UNSET');
    assert.equal(received.scope, 'mcp-toolkit');
    assert.equal(received.scopeVersion, '1.2.3');
    assert.deepEqual(received.attributes, {
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'read_file',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-06-18',
      'mcp.session.id': 'session-1',
      'jsonrpc.request.id': '7',
      'mcp.client.id': 'alice',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'network.protocol.version': '1.1',
      'client.address': '127.0.0.1',
      'client.port': 50123,
      'app.extra': 'yes',
    });
    assert.equal(received.resource['service.version'], '1.2.3');
  });

  test('the handler runs in the span context: its own spans are children', async (t) => {
    const { telemetry, mine } = await telemetryFor(t);
    const span = telemetry.startRequestSpan({
      method: 'tools/call',
      targetName: 'fetcher',
      targetKnown: true,
      transport: 'stdio',
    });
    const seen = await context.with(span.context, async () => {
      await new Promise((r) => setTimeout(r, 1));
      const active = trace.getActiveSpan();
      await trace.getTracer('plugin').startActiveSpan('plugin work', async (child) => {
        await new Promise((r) => setTimeout(r, 1));
        child.end();
      });
      return active;
    });
    assert.equal(seen, span.span);
    span.end({});
    await telemetry.shutdown(2000);
    const spans = await receiver.waitForSpans(mine, 5000, 2);
    const server = spans.find((s) => s.name === 'tools/call fetcher');
    const child = spans.find((s) => s.name === 'plugin work');
    assert.ok(server && child);
    assert.equal(child.traceId, server.traceId);
    assert.equal(child.parentSpanId, server.spanId);
    assert.equal(child.scope, 'plugin');
  });

  test('params._meta names the parent (traceparent, tracestate) and its baggage joins the context', async (t) => {
    const { telemetry, mine } = await telemetryFor(t);
    const span = telemetry.startRequestSpan({
      method: 'tools/call',
      targetName: 'read_file',
      targetKnown: true,
      requestId: 1,
      transport: 'http',
      meta: {
        traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01`,
        tracestate: 'vendor=opaque',
        baggage: 'tenant=acme',
      },
    });
    assert.equal(span.logFields?.trace_id, PARENT_TRACE);
    assert.equal(propagation.getBaggage(span.context)?.getEntry('tenant')?.value, 'acme');
    span.end({});
    await telemetry.shutdown(2000);
    const [received] = await receiver.waitForSpans(mine, 5000);
    assert.equal(received?.traceId, PARENT_TRACE);
    assert.equal(received?.parentSpanId, PARENT_SPAN);
    assert.equal(received?.traceState, 'vendor=opaque');
    assert.deepEqual(received?.links, []);
  });

  test('without _meta the ambient span is the parent; with _meta a different ambient span is linked', async (t) => {
    const { telemetry, mine } = await telemetryFor(t);
    const outer = trace.getTracer('app').startSpan('HTTP POST');
    const ambient = trace.setSpan(context.active(), outer);
    const plain = context.with(ambient, () =>
      telemetry.startRequestSpan({ method: 'tools/list', requestId: 'plain', transport: 'http' }),
    );
    const linked = context.with(ambient, () =>
      telemetry.startRequestSpan({
        method: 'tools/list',
        requestId: 'linked',
        transport: 'http',
        meta: { traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01` },
      }),
    );
    plain.end({});
    linked.end({});
    outer.end();
    await telemetry.shutdown(2000);
    const spans = await receiver.waitForSpans(mine, 5000, 3);
    const byId = (id: string) => spans.find((s) => s.attributes['jsonrpc.request.id'] === id);
    const http = spans.find((s) => s.name === 'HTTP POST');
    assert.ok(http);
    assert.equal(byId('plain')?.parentSpanId, http.spanId);
    assert.equal(byId('plain')?.traceId, http.traceId);
    assert.equal(byId('linked')?.parentSpanId, PARENT_SPAN);
    assert.deepEqual(byId('linked')?.links, [{ traceId: http.traceId, spanId: http.spanId }]);
  });

  test('the HTTP traceparent header is the parent when there is no _meta or ambient span, else linked', async (t) => {
    const { telemetry, mine } = await telemetryFor(t);
    const headers = { traceparent: `00-${OTHER_TRACE}-${OTHER_SPAN}-01`, 'content-type': 'application/json' };
    telemetry
      .startRequestSpan({ method: 'tools/list', requestId: 'header', transport: 'http', headers })
      .end({});
    telemetry
      .startRequestSpan({
        method: 'tools/list',
        requestId: 'both',
        transport: 'http',
        headers,
        meta: { traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01` },
      })
      .end({});
    await telemetry.shutdown(2000);
    const spans = await receiver.waitForSpans(mine, 5000, 2);
    const byId = (id: string) => spans.find((s) => s.attributes['jsonrpc.request.id'] === id);
    assert.equal(byId('header')?.traceId, OTHER_TRACE);
    assert.equal(byId('header')?.parentSpanId, OTHER_SPAN);
    assert.equal(byId('both')?.traceId, PARENT_TRACE);
    assert.deepEqual(byId('both')?.links, [{ traceId: OTHER_TRACE, spanId: OTHER_SPAN }]);
  });

  test('a malformed or oversized traceparent is ignored: the span starts a new trace', async (t) => {
    const { telemetry, mine } = await telemetryFor(t);
    const bad: unknown[] = [
      'garbage',
      `00-${'0'.repeat(32)}-${PARENT_SPAN}-01`,
      `ff-${PARENT_TRACE}-${PARENT_SPAN}-01`,
      `00-${PARENT_TRACE}-${PARENT_SPAN}-01${' '.repeat(9000)}`,
      42,
      { traceparent: 'x' },
    ];
    for (const [i, traceparent] of bad.entries()) {
      telemetry
        .startRequestSpan({ method: 'ping', requestId: i, transport: 'stdio', meta: { traceparent } })
        .end({});
    }
    await telemetry.shutdown(2000);
    const spans = await receiver.waitForSpans(mine, 5000, bad.length);
    for (const s of spans) {
      assert.equal(s.parentSpanId, undefined);
      assert.notEqual(s.traceId, PARENT_TRACE);
    }
  });

  test('failures: ERROR status with the message as description, error.type and rpc.response.status_code', async (t) => {
    const { telemetry, mine } = await telemetryFor(t);
    const call = (id: string) =>
      telemetry.startRequestSpan({
        method: 'tools/call',
        targetName: 'fails',
        targetKnown: true,
        requestId: id,
        transport: 'stdio',
      });
    call('tool').end({ isError: true, message: 'RangeError: too big' });
    call('protocol').end({ code: ErrorCode.InvalidParams, message: 'Unknown tool: nope' });
    call('internal').end({ error: InternalCode.Timeout, message: 'timed out after 5 ms' });
    call('ok').end({ isError: false });
    await telemetry.shutdown(2000);
    const spans = await receiver.waitForSpans(mine, 5000, 4);
    const byId = (id: string) => spans.find((s) => s.attributes['jsonrpc.request.id'] === id);
    assert.equal(byId('tool')?.attributes['error.type'], 'tool_error');
    assert.deepEqual(byId('tool')?.status, { code: 'ERROR', message: 'RangeError: too big' });
    assert.equal(byId('protocol')?.attributes['error.type'], String(ErrorCode.InvalidParams));
    assert.equal(byId('protocol')?.attributes['rpc.response.status_code'], String(ErrorCode.InvalidParams));
    assert.deepEqual(byId('protocol')?.status, { code: 'ERROR', message: 'Unknown tool: nope' });
    assert.equal(byId('internal')?.attributes['error.type'], InternalCode.Timeout);
    assert.equal(byId('ok')?.status.code, 'UNSET');
    assert.equal(byId('ok')?.attributes['error.type'], undefined);
  });

  test('a name that matches no tool, prompt or method stays out of the span name', async (t) => {
    const { telemetry, mine } = await telemetryFor(t);
    telemetry
      .startRequestSpan({
        method: 'tools/call',
        targetName: 'made_up',
        targetKnown: false,
        requestId: 'a',
        transport: 'stdio',
      })
      .end({});
    telemetry
      .startRequestSpan({
        method: 'prompts/get',
        targetName: 'made_up',
        targetKnown: false,
        requestId: 'b',
        transport: 'stdio',
      })
      .end({});
    telemetry.startRequestSpan({ method: 'x/made-up', requestId: 'c', transport: 'stdio' }).end({});
    telemetry
      .startRequestSpan({
        method: 'resources/read',
        targetName: 'file:///a',
        requestId: 'd',
        transport: 'stdio',
      })
      .end({});
    await telemetry.shutdown(2000);
    const spans = await receiver.waitForSpans(mine, 5000, 4);
    assert.deepEqual(spans.map((s) => s.name).sort(), [
      '_OTHER',
      'prompts/get',
      'resources/read',
      'tools/call',
    ]);
    assert.equal(spans.find((s) => s.name === 'resources/read')?.attributes['mcp.resource.uri'], 'file:///a');
  });

  test('MCP_OTEL_SAMPLE_RATIO=0 records no root trace, but a sampled parent is followed', async (t) => {
    const { telemetry, mine } = await telemetryFor(t, {}, { MCP_OTEL_SAMPLE_RATIO: 0 } as never);
    const root = telemetry.startRequestSpan({ method: 'ping', requestId: 'root', transport: 'stdio' });
    assert.equal(root.span.isRecording(), false);
    assert.equal(root.logFields?.trace_flags, '00');
    root.end({});
    telemetry
      .startRequestSpan({
        method: 'ping',
        requestId: 'child',
        transport: 'stdio',
        meta: { traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01` },
      })
      .end({});
    await telemetry.shutdown(2000);
    const spans = await receiver.waitForSpans(mine, 5000);
    assert.deepEqual(
      spans.map((s) => s.attributes['jsonrpc.request.id']),
      ['child'],
    );
  });

  test('metrics: operation duration with the span attributes, tool errors, refusals, session duration', async (t) => {
    const { telemetry, service } = await telemetryFor(t);
    const call = (target: string, known: boolean) =>
      telemetry.startRequestSpan({
        method: 'tools/call',
        targetName: target,
        targetKnown: known,
        protocolVersion: '2025-06-18',
        transport: 'http',
        httpVersion: '1.1',
      });
    call('add', true).end({});
    call('add', true).end({ isError: true });
    call('made_up', false).end({ code: ErrorCode.InvalidParams });
    telemetry
      .startRequestSpan({
        method: 'prompts/get',
        targetName: 'review',
        targetKnown: true,
        transport: 'stdio',
      })
      .end({});
    telemetry.recordRefusal({
      httpMethod: 'POST',
      status: 429,
      reason: 'rate_limited',
      message: 'Too many requests',
    });
    telemetry.sessionStarted({
      id: 's1',
      protocolVersion: '2025-11-25',
      transport: 'http',
      httpVersion: '1.1',
    });
    telemetry.sessionEnded('s1');
    await telemetry.shutdown(2000);
    const mine = (name: string) =>
      receiver.metrics.filter((m) => m.name === name && m.resource['service.name'] === service);
    await receiver.waitForMetric('mcp.server.session.duration', 5000);
    const points = mine('mcp.server.operation.duration').flatMap((m) => m.points);
    assert.equal(mine('mcp.server.operation.duration')[0]?.kind, 'histogram');
    assert.equal(mine('mcp.server.operation.duration')[0]?.unit, 's');
    const ok = points.find(
      (p) => p.attributes['gen_ai.tool.name'] === 'add' && p.attributes['error.type'] === undefined,
    );
    // The conventions' required and conditionally required attributes (the default set).
    assert.deepEqual(ok?.attributes, { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'add' });
    const unknown = points.find((p) => p.attributes['error.type'] === String(ErrorCode.InvalidParams));
    assert.equal(unknown?.attributes['gen_ai.tool.name'], undefined, 'a made-up tool name mints no series');
    assert.equal(unknown?.attributes['rpc.response.status_code'], String(ErrorCode.InvalidParams));
    const prompt = points.find((p) => p.attributes['mcp.method.name'] === 'prompts/get');
    assert.equal(prompt?.attributes['gen_ai.prompt.name'], 'review');
    assert.equal(mine('mcp.server.tool_errors').flatMap((m) => m.points)[0]?.value, 1);
    const refusal = mine('mcp.server.refusals').flatMap((m) => m.points)[0];
    assert.deepEqual(refusal?.attributes, { 'http.response.status_code': 429, 'error.type': 'rate_limited' });
    const session = mine('mcp.server.session.duration').flatMap((m) => m.points)[0];
    assert.equal(session?.count, 1);
    assert.equal(session?.attributes['mcp.protocol.version'], '2025-11-25');
  });

  test('MCP_OTEL_METRIC_ATTRIBUTES=recommended: the duration carries the recommended attributes too', async (t) => {
    const { telemetry, service } = await telemetryFor(t, {}, { MCP_OTEL_METRIC_ATTRIBUTES: 'recommended' });
    telemetry
      .startRequestSpan({
        method: 'tools/call',
        targetName: 'add',
        targetKnown: true,
        protocolVersion: '2025-06-18',
        transport: 'http',
        httpVersion: '1.1',
      })
      .end({});
    // Shutdown resolves once the meter provider's last export was answered.
    await telemetry.shutdown(2000);
    const metric = receiver.metrics.find(
      (m) => m.name === 'mcp.server.operation.duration' && m.resource['service.name'] === service,
    );
    assert.deepEqual(metric?.points[0]?.attributes, {
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'add',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-06-18',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'network.protocol.version': '1.1',
    });
  });

  test('reports a failing collector once per failing streak', async (t) => {
    // A collector that refuses everything with a non-retryable status.
    const refusing = createServer((_req, res) => res.writeHead(400).end());
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise((resolve) => refusing.close(resolve)));
    const failures: string[] = [];
    const config = parseTracingConfig(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`,
        OTEL_BSP_SCHEDULE_DELAY: '10',
      },
      SETTINGS,
      '1',
    );
    const telemetry = await createTelemetry({ config, onExportError: (signal) => failures.push(signal) });
    telemetry.startRequestSpan({ method: 'ping', transport: 'stdio' }).end({});
    for (let i = 0; i < 200 && failures.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    telemetry.startRequestSpan({ method: 'ping', transport: 'stdio' }).end({});
    await telemetry.shutdown(2000);
    assert.equal(failures.filter((s) => s === 'traces').length, 1);
    assert.equal(failures.filter((s) => s === 'metrics').length, 1);
  });
});

describe('no endpoint and no application provider', () => {
  test('is disabled, shares one no-op span and sends nothing', async () => {
    const telemetry: Telemetry = await createTelemetry({ config: parseTracingConfig({}, SETTINGS, '1') });
    assert.equal(telemetry, NOOP_TELEMETRY);
    const a = telemetry.startRequestSpan({
      method: 'tools/call',
      targetName: 'read_file',
      transport: 'stdio',
    });
    const b = telemetry.startRequestSpan({ method: 'ping', transport: 'stdio' });
    assert.equal(a, b, 'no allocation per request');
    assert.equal(a.logFields, undefined);
    assert.equal(a.span.isRecording(), false);
    a.end({ isError: true });
    assert.equal(
      telemetry.recordRefusal({ httpMethod: 'POST', status: 401, reason: 'unauthorized', message: 'x' }),
      undefined,
    );
    await telemetry.shutdown();
  });

  test('OTEL_SDK_DISABLED=true starts nothing even with an endpoint', async () => {
    const before = receiver.requests.length;
    const config = parseTracingConfig(
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: 'true' },
      SETTINGS,
      '1',
    );
    const telemetry = await createTelemetry({ config });
    assert.equal(telemetry, NOOP_TELEMETRY);
    telemetry.startRequestSpan({ method: 'ping', transport: 'stdio' }).end({});
    await telemetry.shutdown();
    assert.equal(receiver.requests.length, before);
  });
});
