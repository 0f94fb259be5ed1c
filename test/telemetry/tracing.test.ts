import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ErrorCode, InternalCode, ToolkitError } from '../../src/protocol/errors.ts';
import {
  createTelemetry,
  NOOP_TELEMETRY,
  type Telemetry,
  type TelemetryOptions,
} from '../../src/telemetry/tracing.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const PARENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT_SPAN = 'b7ad6b7169203331';

let receiver: OtlpReceiver;
let serial = 0;

before(async () => {
  receiver = await startOtlpReceiver();
});
after(() => receiver.close());

/** Telemetry with its own service name, so each test finds its own spans and metrics. */
async function telemetryFor(t: { after(fn: () => unknown): void }, options: Partial<TelemetryOptions> = {}) {
  const service = `svc-${process.pid}-${++serial}`;
  const telemetry = await createTelemetry({
    endpoint: receiver.url,
    serviceName: service,
    serviceVersion: '1.2.3',
    ...options,
  });
  t.after(() => telemetry.shutdown());
  const mine = (s: ReceivedSpan) => s.resource['service.name'] === service;
  return { telemetry, service, mine };
}

describe('createTelemetry with an endpoint', () => {
  test('exports a SERVER span per tools/call with the MCP semantic-convention attributes', async (t) => {
    const { telemetry, mine } = await telemetryFor(t);
    assert.equal(telemetry.enabled, true);
    const span = telemetry.startRequestSpan({
      method: 'tools/call',
      target: 'read_file',
      requestId: 7,
      sessionId: 'session-1',
      protocolVersion: '2025-06-18',
      clientId: 'alice',
      transport: 'stdio',
    });
    span.setAttribute('app.extra', 'yes');
    span.end({ isError: false });
    await telemetry.shutdown();

    const [received] = await receiver.waitForSpans(mine, 5000);
    assert.ok(received);
    assert.equal(received.name, 'tools/call read_file');
    assert.equal(received.kind, 'SERVER');
    assert.equal(received.traceId, span.traceId);
    assert.match(received.traceId, /^[0-9a-f]{32}$/);
    assert.equal(received.parentSpanId, undefined);
    assert.equal(received.status.code, 'UNSET');
    assert.deepEqual(received.attributes, {
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'read_file',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-06-18',
      'mcp.session.id': 'session-1',
      'jsonrpc.request.id': '7',
      'mcp.client.id': 'alice',
      'network.transport': 'pipe',
      'app.extra': 'yes',
    });
    assert.equal(received.resource['service.version'], '1.2.3');
  });

  test('names a span by its method alone when there is no tool or prompt target', async (t) => {
    const { telemetry, mine } = await telemetryFor(t, { spanDelayMs: 20 });
    telemetry.startRequestSpan({ method: 'tools/list', requestId: 'a', transport: 'http' }).end({});
    telemetry
      .startRequestSpan({
        method: 'resources/read',
        target: 'file:///notes.txt',
        requestId: 'b',
        transport: 'http',
      })
      .end({});
    // Exported by the batch processor on its own schedule, before any shutdown.
    const spans = await receiver.waitForSpans(mine, 5000, 2);
    const list = spans.find((s) => s.attributes['jsonrpc.request.id'] === 'a');
    const read = spans.find((s) => s.attributes['jsonrpc.request.id'] === 'b');
    assert.equal(list?.name, 'tools/list');
    assert.equal(list?.attributes['network.transport'], 'tcp');
    assert.equal(list?.attributes['network.protocol.name'], 'http');
    assert.equal(read?.name, 'resources/read');
    assert.equal(read?.attributes['mcp.resource.uri'], 'file:///notes.txt');
  });

  test('a traceparent from _meta makes the span its child', async (t) => {
    const { telemetry, mine } = await telemetryFor(t);
    const span = telemetry.startRequestSpan({
      method: 'tools/call',
      target: 'read_file',
      requestId: 1,
      transport: 'http',
      traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01`,
      tracestate: 'vendor=opaque',
    });
    assert.equal(span.traceId, PARENT_TRACE);
    span.end({});
    await telemetry.shutdown();
    const [received] = await receiver.waitForSpans(mine, 5000);
    assert.equal(received?.traceId, PARENT_TRACE);
    assert.equal(received?.parentSpanId, PARENT_SPAN);
  });

  test('a malformed traceparent is ignored: the span starts a new trace', async (t) => {
    const { telemetry, mine } = await telemetryFor(t);
    const bad: unknown[] = [
      'garbage',
      `00-${'0'.repeat(32)}-${PARENT_SPAN}-01`,
      `ff-${PARENT_TRACE}-${PARENT_SPAN}-01`,
      42,
      { traceparent: 'x' },
    ];
    for (const [i, traceparent] of bad.entries()) {
      telemetry.startRequestSpan({ method: 'ping', requestId: i, transport: 'stdio', traceparent }).end({});
    }
    await telemetry.shutdown();
    const spans = await receiver.waitForSpans(mine, 5000, bad.length);
    for (const s of spans) {
      assert.equal(s.parentSpanId, undefined);
      assert.notEqual(s.traceId, PARENT_TRACE);
    }
  });

  test('an isError result gives error.type=tool_error; a protocol error gives its code', async (t) => {
    const { telemetry, mine } = await telemetryFor(t);
    telemetry
      .startRequestSpan({ method: 'tools/call', target: 'fails', requestId: 1, transport: 'stdio' })
      .end({
        isError: true,
      });
    telemetry
      .startRequestSpan({ method: 'tools/call', target: 'nope', requestId: 2, transport: 'stdio' })
      .end({
        code: ErrorCode.InvalidParams,
      });
    telemetry
      .startRequestSpan({ method: 'tools/call', target: 'slow', requestId: 3, transport: 'stdio' })
      .end({
        error: InternalCode.Timeout,
      });
    await telemetry.shutdown();
    const spans = await receiver.waitForSpans(mine, 5000, 3);
    const byId = (id: string) => spans.find((s) => s.attributes['jsonrpc.request.id'] === id);
    assert.equal(byId('1')?.attributes['error.type'], 'tool_error');
    assert.equal(byId('1')?.status.code, 'ERROR');
    assert.equal(byId('2')?.attributes['error.type'], String(ErrorCode.InvalidParams));
    assert.equal(byId('2')?.attributes['rpc.response.status_code'], String(ErrorCode.InvalidParams));
    assert.equal(byId('2')?.status.code, 'ERROR');
    assert.equal(byId('3')?.attributes['error.type'], InternalCode.Timeout);
  });

  test('a sample ratio of 0 exports no root span, follows a sampled caller, and still counts every request', async (t) => {
    const { telemetry, service, mine } = await telemetryFor(t, { sampleRatio: 0 });
    const unsampled = telemetry.startRequestSpan({
      method: 'tools/call',
      target: 'read_file',
      requestId: 1,
      transport: 'http',
    });
    // The log line keeps a trace id to correlate with, sampled or not.
    assert.match(unsampled.traceId ?? '', /^[0-9a-f]{32}$/);
    unsampled.end({});
    telemetry
      .startRequestSpan({
        method: 'tools/call',
        target: 'read_file',
        requestId: 2,
        transport: 'http',
        traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01`,
      })
      .end({});
    await telemetry.shutdown();

    await receiver.waitForSpans(mine, 5000);
    await receiver.waitForMetric('mcp.server.operation.duration', 5000);
    // Shutdown flushed everything: only the caller-sampled span was exported.
    assert.deepEqual(
      receiver.spans.filter(mine).map((s) => [s.traceId, s.attributes['jsonrpc.request.id']]),
      [[PARENT_TRACE, '2']],
    );
    const duration = receiver.metrics.find(
      (m) => m.name === 'mcp.server.operation.duration' && m.resource['service.name'] === service,
    );
    assert.equal(
      duration?.points.reduce((n, p) => n + (p.count ?? 0), 0),
      2,
    );
  });

  test('refuses a sample ratio outside 0 to 1', async () => {
    await assert.rejects(
      createTelemetry({ endpoint: receiver.url, serviceName: 's', serviceVersion: '1', sampleRatio: 1.5 }),
      (err: unknown) => err instanceof ToolkitError && /from 0 to 1/.test(err.message),
    );
  });

  test('requests alternating between routes keep their own names, attributes and series', async (t) => {
    const { telemetry, service, mine } = await telemetryFor(t);
    const calls = [
      ['add', 'alice'],
      ['sub', 'alice'],
      ['add', 'alice'],
      ['add', 'bob'],
      ['add', 'alice'],
    ] as const;
    calls.forEach(([tool, clientId], i) => {
      telemetry
        .startRequestSpan({ method: 'tools/call', target: tool, requestId: i, clientId, transport: 'http' })
        .end({ isError: false });
    });
    await telemetry.shutdown();
    const spans = await receiver.waitForSpans(mine, 5000, calls.length);
    const byId = (id: number) => spans.find((s) => s.attributes['jsonrpc.request.id'] === String(id));
    calls.forEach(([tool, clientId], i) => {
      assert.equal(byId(i)?.name, `tools/call ${tool}`);
      assert.equal(byId(i)?.attributes['gen_ai.tool.name'], tool);
      assert.equal(byId(i)?.attributes['mcp.client.id'], clientId);
    });
    await receiver.waitForMetric('mcp.server.operation.duration', 5000);
    const duration = receiver.metrics.find(
      (m) => m.name === 'mcp.server.operation.duration' && m.resource['service.name'] === service,
    );
    const count = (tool: string) =>
      duration?.points.find((p) => p.attributes['gen_ai.tool.name'] === tool)?.count;
    assert.equal(count('add'), 4);
    assert.equal(count('sub'), 1);
  });

  test('setAttribute overrides a shared attribute for its span alone', async (t) => {
    const { telemetry, mine } = await telemetryFor(t);
    const info = { method: 'tools/call', target: 'add', clientId: 'alice', transport: 'http' } as const;
    const first = telemetry.startRequestSpan({ ...info, requestId: 1 });
    first.setAttribute('mcp.client.id', 'carol');
    first.end({ isError: false });
    telemetry.startRequestSpan({ ...info, requestId: 2 }).end({ isError: false });
    await telemetry.shutdown();
    const spans = await receiver.waitForSpans(mine, 5000, 2);
    const byId = (id: string) => spans.find((s) => s.attributes['jsonrpc.request.id'] === id);
    assert.equal(byId('1')?.attributes['mcp.client.id'], 'carol');
    assert.equal(byId('1')?.attributes['gen_ai.tool.name'], 'add');
    assert.equal(byId('2')?.attributes['mcp.client.id'], 'alice');
  });

  test('shutdown flushes the duration histogram, tool errors and refusals', async (t) => {
    const { telemetry, service } = await telemetryFor(t);
    telemetry
      .startRequestSpan({ method: 'tools/call', target: 'read_file', requestId: 1, transport: 'http' })
      .end({});
    telemetry
      .startRequestSpan({ method: 'tools/call', target: 'read_file', requestId: 2, transport: 'http' })
      .end({
        isError: true,
      });
    telemetry.startRequestSpan({ method: 'made/up', requestId: 3, transport: 'http' }).end({
      code: ErrorCode.MethodNotFound,
    });
    telemetry.recordRefusal(429, 'rate_limited');
    telemetry.recordRefusal(429, 'rate_limited');
    telemetry.recordRefusal(401, 'unauthorized');
    await telemetry.shutdown();

    const mineNamed = async (name: string) => {
      await receiver.waitForMetric(name, 5000);
      const found = receiver.metrics.find((m) => m.name === name && m.resource['service.name'] === service);
      assert.ok(found, `${name} exported for ${service}`);
      return found;
    };
    const duration = await mineNamed('mcp.server.operation.duration');
    assert.equal(duration.kind, 'histogram');
    assert.equal(duration.unit, 's');
    const ok = duration.points.find((p) => p.attributes['error.type'] === undefined);
    assert.equal(ok?.count, 1);
    assert.equal(ok?.attributes['mcp.method.name'], 'tools/call');
    assert.equal(ok?.attributes['gen_ai.tool.name'], 'read_file');
    assert.ok((ok?.sum ?? -1) >= 0);
    const toolError = duration.points.find((p) => p.attributes['error.type'] === 'tool_error');
    assert.equal(toolError?.count, 1);
    // A client-chosen method name must not mint a new time series.
    const unknown = duration.points.find(
      (p) => p.attributes['error.type'] === String(ErrorCode.MethodNotFound),
    );
    assert.equal(unknown?.attributes['mcp.method.name'], '_OTHER');

    const refusals = await mineNamed('mcp.server.refusals');
    assert.equal(refusals.kind, 'sum');
    const tooMany = refusals.points.find((p) => p.attributes['http.response.status_code'] === 429);
    assert.equal(tooMany?.value, 2);
    assert.equal(tooMany?.attributes['error.type'], 'rate_limited');
    assert.equal(refusals.points.find((p) => p.attributes['http.response.status_code'] === 401)?.value, 1);

    const toolErrors = await mineNamed('mcp.server.tool_errors');
    assert.equal(toolErrors.points[0]?.value, 1);
    assert.equal(toolErrors.points[0]?.attributes['gen_ai.tool.name'], 'read_file');
  });

  test('a batch goes at 2,048 spans without waiting for its delay, and not before', async (t) => {
    const { telemetry, mine } = await telemetryFor(t, { spanDelayMs: 60_000 });
    const end = (n: number) => {
      for (let i = 0; i < n; i++) {
        telemetry.startRequestSpan({ method: 'tools/call', target: 'add', transport: 'http' }).end({});
      }
    };
    end(2047);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(receiver.spans.filter(mine).length, 0, 'one span short of a batch: nothing sent yet');
    end(1);
    const spans = await receiver.waitForSpans(mine, 5000, 2048);
    assert.equal(spans.length, 2048);
  });

  test('end and shutdown are idempotent', async (t) => {
    const { telemetry, mine } = await telemetryFor(t);
    const span = telemetry.startRequestSpan({ method: 'ping', requestId: 1, transport: 'stdio' });
    span.end({});
    span.end({ isError: true });
    await Promise.all([telemetry.shutdown(), telemetry.shutdown()]);
    await telemetry.shutdown();
    const spans = await receiver.waitForSpans(mine, 5000);
    assert.equal(spans.length, 1);
    assert.equal(spans[0]?.attributes['error.type'], undefined);
  });

  test('reports a failing collector once per failing streak', async (t) => {
    // A collector that refuses everything with a non-retryable status.
    const refusing = createServer((_req, res) => res.writeHead(400).end());
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise((resolve) => refusing.close(resolve)));
    const failures: string[] = [];
    const telemetry = await createTelemetry({
      endpoint: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`,
      serviceName: 'refused',
      serviceVersion: '1',
      spanDelayMs: 10,
      onExportError: (signal) => failures.push(signal),
    });
    telemetry.startRequestSpan({ method: 'ping', transport: 'stdio' }).end({});
    for (let i = 0; i < 200 && failures.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    telemetry.startRequestSpan({ method: 'ping', transport: 'stdio' }).end({});
    await telemetry.shutdown();
    assert.equal(failures.filter((s) => s === 'traces').length, 1);
    assert.equal(failures.filter((s) => s === 'metrics').length, 1);
  });

  test('rejects a bad endpoint or option at once', async () => {
    const isInvalidSetting = (err: unknown) =>
      err instanceof ToolkitError && err.code === InternalCode.InvalidSetting;
    const base = { serviceName: 's', serviceVersion: '1' };
    await assert.rejects(createTelemetry({ ...base, endpoint: 'not a url' }), isInvalidSetting);
    await assert.rejects(createTelemetry({ ...base, endpoint: 'ftp://127.0.0.1' }), isInvalidSetting);
    await assert.rejects(
      createTelemetry({ ...base, endpoint: receiver.url, serviceName: ' ' }),
      isInvalidSetting,
    );
    await assert.rejects(
      createTelemetry({ ...base, endpoint: receiver.url, exportIntervalMs: 0 }),
      isInvalidSetting,
    );
  });
});

describe('createTelemetry without an endpoint', () => {
  test('is disabled, shares one no-op span and sends nothing', async () => {
    const quiet = await startOtlpReceiver();
    try {
      const telemetry: Telemetry = await createTelemetry({ serviceName: 'off', serviceVersion: '1' });
      assert.equal(telemetry.enabled, false);
      assert.equal(telemetry, NOOP_TELEMETRY);
      const info = { method: 'tools/call', target: 'read_file', transport: 'stdio' } as const;
      const a = telemetry.startRequestSpan(info);
      const b = telemetry.startRequestSpan({ ...info, traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01` });
      assert.equal(a, b, 'no allocation per request');
      assert.equal(a.traceId, undefined);
      a.setAttribute('k', 'v');
      a.end({ isError: true });
      telemetry.recordRefusal(429, 'rate_limited');
      await telemetry.shutdown();
      assert.deepEqual(quiet.requests, []);
      assert.equal(
        (await createTelemetry({ endpoint: '', serviceName: 'off', serviceVersion: '1' })).enabled,
        false,
      );
    } finally {
      await quiet.close();
    }
  });
});
