/**
 * With our own pipeline the sampler is one of the SDK's (ratio, always-on, always-off, each
 * parent-based or not), none of which reads attributes: `startSpan` is then handed none, so the
 * SDK checks and copies nothing for a span it drops, and a span it keeps gets every attribute
 * right after the decision (docs/observability.md, "Sampling"). Checked on the SDK's tracer with
 * our sampler at ratio 0, a spy on what `startSpan` is given and what is set on the span.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  type Attributes,
  type Context,
  propagation,
  type Span,
  type SpanOptions,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { RequestTelemetry } from '../../src/telemetry/request-telemetry.ts';
import { samplerOf } from '../../src/telemetry/sdk-pipeline.ts';
import { extractKeysOf } from '../../src/telemetry/span-parent.ts';

const exporter = new InMemorySpanExporter();
const sdk = new TracerProvider({
  sampler: samplerOf({ sampler: 'parentbased_traceidratio', samplerRatio: 0 }),
  spanProcessors: [new SimpleSpanProcessor({ exporter })],
});
const given: (Attributes | undefined)[] = [];
const set: string[] = [];
trace.setGlobalTracerProvider({
  getTracer(name, version) {
    const tracer = sdk.getTracer(name, version);
    return {
      startSpan(spanName: string, options?: SpanOptions, ctx?: Context): Span {
        given.push(options?.attributes);
        const span = tracer.startSpan(spanName, options, ctx);
        const setAttributes = span.setAttributes.bind(span);
        span.setAttributes = (attributes: Attributes) => {
          set.push(`recording=${span.isRecording()}`);
          return setAttributes(attributes);
        };
        return span;
      },
      startActiveSpan: tracer.startActiveSpan.bind(tracer) as never,
    };
  },
});
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
after(async () => {
  await sdk.shutdown();
  trace.disable();
  propagation.disable();
});

const REQUEST = {
  method: 'tools/call',
  targetName: 'add',
  targetKnown: true,
  requestId: 7,
  identity: { clientId: 'alice', scopes: [] },
  protocolVersion: '2026-07-28',
  transport: 'http',
  address: '127.0.0.1',
  port: 50123,
  httpVersion: '1.1',
} as const;

test('our own samplers are handed no attributes; a kept span carries them all', () => {
  const telemetry = new RequestTelemetry('1.2.3', undefined, {
    extractKeys: extractKeysOf(['tracecontext', 'baggage']),
    samplerSeesAttributes: false,
  });

  // Ratio 0, no parent: dropped, and nothing was given to `startSpan` or set.
  telemetry.startRequestSpan(REQUEST).end({});
  assert.deepEqual(given, [undefined]);
  assert.deepEqual(set, []);
  assert.deepEqual(exporter.getFinishedSpans(), []);

  // A sampled parent is followed: the span records and carries the kind's and the request's attributes.
  const headers = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
  telemetry.startRequestSpan({ ...REQUEST, headers }).end({});
  assert.equal(given[1], undefined);
  assert.ok(set.length > 0 && set.every((s) => s === 'recording=true'), set.join(', '));
  const [kept] = exporter.getFinishedSpans();
  assert.equal(kept?.name, 'tools/call add');
  assert.deepEqual(
    {
      method: kept?.attributes['mcp.method.name'],
      tool: kept?.attributes['gen_ai.tool.name'],
      operation: kept?.attributes['gen_ai.operation.name'],
      client: kept?.attributes['mcp.client.id'],
      id: kept?.attributes['jsonrpc.request.id'],
      transport: kept?.attributes['network.transport'],
    },
    {
      method: 'tools/call',
      tool: 'add',
      operation: 'execute_tool',
      client: 'alice',
      id: '7',
      transport: 'tcp',
    },
  );
});

test('an application sampler (the default) is still handed the set that names the request kind', () => {
  given.length = 0;
  const telemetry = new RequestTelemetry('1.2.3', undefined);
  telemetry.startRequestSpan(REQUEST).end({});
  assert.deepEqual(given, [
    { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'add', 'gen_ai.operation.name': 'execute_tool' },
  ]);
});
