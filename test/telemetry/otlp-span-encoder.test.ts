/**
 * Our OTLP span encoder against the reference one (@opentelemetry/otlp-transformer's
 * ProtobufTraceSerializer): an SDK span and the record of the same span must give the same
 * bytes, for every kind of attribute value, remote parents, trace state, statuses, kinds,
 * times, and batches large enough to need long length prefixes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Attributes,
  type HrTime,
  ROOT_CONTEXT,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import {
  encodeSpanAttributes,
  epochMsToHrTime,
  SpanBatch,
  type SpanRecord,
} from '../../src/telemetry/otlp-span-encoder.ts';

const SCOPE = { name: 'mcp-toolkit', version: '0.1.0' };

function provider(resource: Attributes) {
  const exporter = new InMemorySpanExporter();
  const tp = new TracerProvider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const tracer = tp.getTracer(SCOPE.name, SCOPE.version);
  return { tracer, spans: () => exporter.getFinishedSpans() as ReadableSpan[] };
}

const msOf = (t: HrTime) => t[0] * 1000 + t[1] / 1e6;

/**
 * The record of an SDK span: what the server's own span holds when it ends. Its first
 * `shared` attributes come pre-encoded, as a route's shared attributes do.
 */
function recordOf(span: ReadableSpan, shared = 0): SpanRecord {
  const ctx = span.spanContext();
  const entries = Object.entries(span.attributes);
  const ids = Buffer.from(ctx.traceId + ctx.spanId, 'hex');
  return {
    ids: Buffer.concat([Buffer.alloc(5), ids]),
    idsAt: 5,
    parentSpanId: span.parentSpanContext?.spanId,
    traceState: ctx.traceState?.serialize() || undefined,
    name: span.name,
    kind: span.kind,
    startMs: msOf(span.startTime),
    endMs: msOf(span.endTime),
    encodedAttributes:
      shared > 0 ? encodeSpanAttributes(Object.fromEntries(entries.slice(0, shared))) : undefined,
    attributes: Object.fromEntries(entries.slice(shared)),
    statusCode: span.status.code,
    traceFlags: ctx.traceFlags,
  };
}

function assertSameBytes(
  resource: Attributes,
  spans: ReadableSpan[],
  shared = 0,
  memory?: ArrayBuffer,
): void {
  assert.ok(spans.length > 0, 'no spans to encode');
  const reference = ProtobufTraceSerializer.serializeRequest(spans);
  assert.ok(reference, 'the reference serializer produced nothing');
  const batch = new SpanBatch(resource, SCOPE, 256, memory);
  for (const span of spans) batch.add(recordOf(span, shared));
  assert.equal(batch.count, spans.length);
  const ours = batch.finish();
  assert.equal(ours.length, reference.length, 'encoded length');
  assert.ok(Buffer.from(ours).equals(Buffer.from(reference)), 'encoded bytes differ from the reference');
}

/** Start and end times a record reproduces exactly (the server takes them as epoch ms). */
function times(startMs: number, durationMs: number): { start: HrTime; end: HrTime } {
  return { start: epochMsToHrTime(startMs), end: epochMsToHrTime(startMs + durationMs) };
}

function remote(traceState?: string, flags = TraceFlags.SAMPLED): SpanContext {
  return {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: flags,
    isRemote: true,
    ...(traceState !== undefined ? { traceState: new TraceState(traceState) } : {}),
  };
}

const EVERY_VALUE: Attributes = {
  'str.ascii': 'tools/call',
  'str.empty': '',
  'str.unicode': 'żółć — 東京 🚀',
  'str.lone-surrogate': 'a\uD800b',
  'str.long': 'x'.repeat(300),
  'str.long-unicode': 'é'.repeat(200),
  'bool.true': true,
  'bool.false': false,
  'int.zero': 0,
  'int.small': 42,
  'int.negative': -7,
  'int.u32max': 4294967295,
  'int.above-u32': 4294967296 + 12345,
  'int.big': 2 ** 52 + 1,
  'int.big-negative': -(2 ** 40) - 3,
  'double.pi': Math.PI,
  'double.negative': -0.5,
  'double.huge': 1e300,
  'arr.strings': ['a', 'ü', ''],
  'arr.numbers': [1, -2, 3.5, 2 ** 33],
  'arr.bools': [true, false],
  'arr.empty': [],
};

describe('OTLP span encoder', () => {
  it('encodes request spans the way the server makes them, byte for byte as the reference', () => {
    const resource = { 'service.name': 'bench', 'service.version': '1.2.3' };
    const { tracer, spans } = provider(resource);
    for (let i = 0; i < 3; i++) {
      const t = times(Date.now() + i * 0.3719, 0.0421 * (i + 1));
      const span = tracer.startSpan('tools/call add', {
        kind: SpanKind.SERVER,
        startTime: t.start,
        attributes: {
          'mcp.method.name': 'tools/call',
          'network.transport': 'tcp',
          'gen_ai.tool.name': 'add',
          'jsonrpc.request.id': String(i),
        },
      });
      if (i === 1) {
        span.setAttribute('error.type', 'tool_error');
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end(t.end);
    }
    assertSameBytes(resource, spans());
    // The route's shared attributes encoded once, the request's own ones as it ends.
    assertSameBytes(resource, spans(), 3);
  });

  it('encodes every kind of attribute value, remote parents, trace state, kinds and statuses', () => {
    const resource = { 'service.name': 'svc', 'host.cpu': 2, 'deployment.flag': true };
    const { tracer, spans } = provider(resource);
    const kinds = [SpanKind.INTERNAL, SpanKind.SERVER, SpanKind.CLIENT, SpanKind.PRODUCER, SpanKind.CONSUMER];
    for (const kind of kinds) {
      const parent = trace.setSpanContext(
        ROOT_CONTEXT,
        remote(kind === SpanKind.SERVER ? 'vendor=value,other=1' : undefined),
      );
      const t = times(1_764_000_000_000 + kind * 1000.123456, 12.5);
      const span = tracer.startSpan(
        `span kind ${kind}`,
        { kind, attributes: EVERY_VALUE, startTime: t.start },
        parent,
      );
      if (kind === SpanKind.CLIENT) span.setStatus({ code: SpanStatusCode.ERROR });
      if (kind === SpanKind.PRODUCER) span.setStatus({ code: SpanStatusCode.OK });
      span.end(t.end);
    }
    // A root span, an old one, and one whose nanoseconds round up to the next second.
    const root = times(946_684_800_123.456, 1000.5);
    tracer.startSpan('root', { startTime: root.start }).end(root.end);
    const edge = times(999.9999999996, 1);
    assert.deepEqual(edge.start, [1, 0]);
    tracer.startSpan('edge', { startTime: edge.start }).end(edge.end);
    assertSameBytes(resource, spans());
    assertSameBytes(resource, spans(), 7);
  });

  it('encodes a batch larger than its starting buffer (long length prefixes, growth)', () => {
    const resource = { 'service.name': 'big', 'long.attr': 'y'.repeat(1000) };
    const { tracer, spans } = provider(resource);
    for (let i = 0; i < 600; i++) {
      const t = times(1_764_000_000_000 + i, 1);
      tracer
        .startSpan(`op ${i}`, {
          startTime: t.start,
          attributes: { payload: 'z'.repeat(i % 7 === 0 ? 20_000 : 100), i },
        })
        .end(t.end);
    }
    assertSameBytes(resource, spans());
  });

  it('writes the same bytes into the memory of an earlier batch, whatever that memory held', () => {
    const resource = { 'service.name': 'svc' };
    const { tracer, spans } = provider(resource);
    for (let i = 0; i < 40; i++) {
      const t = times(1_764_000_000_000 + i, 2);
      tracer.startSpan(`s${i}`, { startTime: t.start, attributes: { i, note: 'n'.repeat(i) } }).end(t.end);
    }
    const used = new ArrayBuffer(64 * 1024);
    new Uint8Array(used).fill(0xab);
    assertSameBytes(resource, spans(), 0, used);
    // Memory too small for the hint is not used, and the batch still encodes right.
    assertSameBytes(resource, spans(), 0, new ArrayBuffer(16));
  });

  it('says when a batch is full, and each batch owns its bytes (exports may still be in flight)', () => {
    const { tracer, spans } = provider({});
    const t = times(1_764_000_000_000, 1);
    tracer.startSpan('big', { startTime: t.start, attributes: { payload: 'p'.repeat(100_000) } }).end(t.end);
    const [span] = spans();
    assert.ok(span);
    const first = new SpanBatch({}, SCOPE);
    first.add(recordOf(span));
    const bytes = first.finish();
    const copy = Buffer.from(bytes);
    const second = new SpanBatch({}, SCOPE);
    for (let i = 0; i < 16 && !second.full; i++) second.add(recordOf(span));
    assert.equal(second.full, true, 'full before 2 MiB');
    assert.ok(second.bytes < 2 * 1024 * 1024);
    assert.ok(Buffer.from(bytes).equals(copy));
  });
});
