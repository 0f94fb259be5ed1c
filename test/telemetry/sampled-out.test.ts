/**
 * A request whose span is sampled out (docs/observability.md, "Sampling"; docs/performance.md,
 * "What each setting costs"): the SDK's ratio sampler at 0 gives a non-recording
 * span; nothing per request is built for it (no attribute set on it, `startSpan` handed the
 * same frozen set as every request of its kind); the handler still runs in its context, so
 * the trace id and the unsampled flag reach outgoing calls; the request line carries that
 * trace id with `trace_flags` `00`; the duration histogram still counts the request; and a
 * parent that says sampled is followed, so an upstream trace stays whole.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, test } from 'node:test';
import {
  type Attributes,
  type Context,
  context,
  metrics,
  propagation,
  type Span,
  type SpanContext,
  type SpanOptions,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
// The Node SDK's context manager (a dependency of @opentelemetry/sdk-node), as a preloaded SDK registers it.
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { buildMcpServer } from '../../src/assembly/server.ts';
import type { JsonRpcMessage } from '../../src/base/jsonrpc.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { definePlugin, defineTool } from '../../src/index.ts';
import { createLogger } from '../../src/telemetry/logger.ts';
import { parseTracingConfig } from '../../src/telemetry/otel-settings.ts';
import { createRequestObserver } from '../../src/telemetry/request-observer.ts';
import { samplerOf } from '../../src/telemetry/sdk-pipeline.ts';
import { createTelemetry } from '../../src/telemetry/tracing.ts';

const PARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';

/** The SDK's own sampler for OTEL_TRACES_SAMPLER=parentbased_traceidratio, ARG=0, and a spy on its spans. */
const sdkSampler = samplerOf({ sampler: 'parentbased_traceidratio', samplerRatio: 0 });
const startOptions: (Attributes | undefined)[] = [];
const calls: string[] = [];
const exporter = new InMemorySpanExporter();
const sdk = new TracerProvider({
  sampler: sdkSampler,
  spanProcessors: [new SimpleSpanProcessor({ exporter })],
});

/** Wraps the SDK's span so that every attribute our code sets on it is seen. */
function spied(span: Span): Span {
  return new Proxy(span, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key === 'setAttribute' || key === 'setAttributes' || key === 'setStatus')
        return (...args: unknown[]) => {
          calls.push(`${String(key)} recording=${target.isRecording()}`);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider({
  getTracer(name, version) {
    const tracer = sdk.getTracer(name, version);
    return {
      startSpan(spanName: string, options?: SpanOptions, ctx?: Context) {
        startOptions.push(options?.attributes);
        return spied(tracer.startSpan(spanName, options, ctx));
      },
      startActiveSpan: tracer.startActiveSpan.bind(tracer) as never,
    };
  },
});
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});
const meters = new MeterProvider({ readers: [reader] });
metrics.setGlobalMeterProvider(meters);
after(async () => {
  await sdk.shutdown();
  await meters.shutdown();
  trace.disable();
  metrics.disable();
  context.disable();
  propagation.disable();
});

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
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, lines };
}

let inHandler: SpanContext | undefined;
const plugin = definePlugin({
  name: 'sampled-out',
  register(app) {
    app.add(
      defineTool({ name: 'probe', description: 'Notes the active span context.' }, async () => {
        inHandler = trace.getSpanContext(context.active());
        return 'ok';
      }),
    );
  },
});

const call = (id: number, meta?: Record<string, unknown>): JsonRpcMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name: 'probe',
    arguments: {},
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      ...meta,
    },
  },
});

test('at sample ratio 0 a request builds no span attributes, and is still logged, counted and propagated', async () => {
  const config = parseTracingConfig({}, { MCP_SERVER_NAME: 'mcp-toolkit' }, '1.2.3');
  const telemetry = await createTelemetry({ config });
  assert.equal(telemetry.enabled, true, 'the application provider is used');
  const { logger, lines } = memoryLogger();
  const server = await buildMcpServer({
    settings: parseSettings({ MCP_LOG_LEVEL: 'info' }),
    logger,
    telemetry,
    observe: createRequestObserver({ telemetry, logger }),
    plugins: [{ definition: plugin as never, settings: {} }],
  });
  const http = {
    transport: 'http' as const,
    headers: { 'mcp-method': 'tools/call', 'mcp-name': 'probe', 'mcp-protocol-version': '2026-07-28' },
    identity: { clientId: 'alice', scopes: [] },
  };

  for (const id of [1, 2]) {
    const reply = await server.dispatcher.handle(call(id), http as never);
    assert.equal((reply.body as { error?: unknown }).error, undefined, JSON.stringify(reply.body));
  }
  // Nothing recorded, nothing set: no attribute was built for a span the sampler dropped.
  assert.deepEqual(exporter.getFinishedSpans(), []);
  assert.deepEqual(calls, []);
  // `startSpan` got what names the request's kind, the same object for each request of it.
  assert.equal(startOptions.length, 2);
  assert.equal(startOptions[0], startOptions[1], 'one frozen attribute set per kind');
  assert.ok(Object.isFrozen(startOptions[0]));
  assert.deepEqual(startOptions[0], {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'probe',
    'gen_ai.operation.name': 'execute_tool',
  });
  // The handler ran in the unsampled span's context: its trace id and flag propagate.
  assert.ok(inHandler !== undefined && /^[0-9a-f]{32}$/.test(inHandler.traceId));
  assert.equal(inHandler.traceFlags & TraceFlags.SAMPLED, 0);
  // The request line: that trace id and span id, flags 00 (logs join the unsampled trace).
  const line = lines().findLast((l) => l.msg === 'mcp request');
  assert.equal(line?.trace_id, inHandler.traceId);
  assert.equal(line?.span_id, inHandler.spanId);
  assert.equal(line?.trace_flags, '00');
  // The duration histogram counts every request, sampled or not.
  await reader.forceFlush();
  const points = metricExporter
    .getMetrics()
    .flatMap((m) => m.scopeMetrics)
    .flatMap((s) => s.metrics)
    .filter((m) => m.descriptor.name === 'mcp.server.operation.duration')
    .flatMap((m) => m.dataPoints as { value: unknown; attributes: Attributes }[]);
  assert.equal(points.length, 1, 'one series for one kind of request');
  assert.equal((points[0]?.value as { count: number } | undefined)?.count, 2);
  assert.deepEqual(points[0]?.attributes, { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'probe' });

  // A parent that says sampled is followed (ParentBased): that span records, every attribute set.
  const parented = await server.dispatcher.handle(
    call(3, { traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01` }),
    http as never,
  );
  assert.equal((parented.body as { error?: unknown }).error, undefined);
  const [kept] = exporter.getFinishedSpans();
  assert.equal(kept?.spanContext().traceId, PARENT_TRACE);
  assert.equal(kept?.attributes['mcp.client.id'], 'alice');
  assert.equal(kept?.attributes['jsonrpc.request.id'], '3');
  const after3: string[] = [...(calls as string[])];
  assert.ok(after3.length > 0 && after3.every((c) => c.endsWith('recording=true')), after3.join(', '));
  await server.close();
  await telemetry.shutdown(1000);
});
