/**
 * Our OTLP span encoder against the reference one (@opentelemetry/otlp-transformer's
 * ProtobufTraceSerializer): the same spans must give the same bytes, for every kind of
 * attribute value, events, links, remote parents, trace state, statuses, kinds, several
 * scopes and resources in one batch, and batches large enough to need long length prefixes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Attributes,
  context,
  ROOT_CONTEXT,
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
import { encodeTraceRequest } from '../../src/telemetry/otlp-span-encoder.ts';

function provider(resource: Attributes) {
  const exporter = new InMemorySpanExporter();
  const tp = new TracerProvider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  return { tp, spans: () => exporter.getFinishedSpans() as ReadableSpan[] };
}

function assertSameBytes(spans: ReadableSpan[]): void {
  assert.ok(spans.length > 0, 'no spans to encode');
  const reference = ProtobufTraceSerializer.serializeRequest(spans);
  assert.ok(reference, 'the reference serializer produced nothing');
  const ours = encodeTraceRequest(spans);
  assert.equal(ours.length, reference.length, 'encoded length');
  assert.ok(Buffer.from(ours).equals(Buffer.from(reference)), 'encoded bytes differ from the reference');
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
  it('encodes a request span the way the server makes it, byte for byte as the reference', () => {
    const { tp, spans } = provider({ 'service.name': 'bench', 'service.version': '1.2.3' });
    const tracer = tp.getTracer('mcp-toolkit', '0.1.0');
    for (let i = 0; i < 3; i++) {
      const span = tracer.startSpan('tools/call add', {
        kind: SpanKind.SERVER,
        attributes: {
          'mcp.method.name': 'tools/call',
          'network.transport': 'tcp',
          'gen_ai.tool.name': 'add',
          'jsonrpc.request.id': String(i),
        },
      });
      span.end();
    }
    assertSameBytes(spans());
  });

  it('encodes every kind of attribute value, events, links and statuses as the reference does', () => {
    const { tp, spans } = provider({ 'service.name': 'svc', 'host.cpu': 2, 'deployment.flag': true });
    const tracer = tp.getTracer('scope-a', '1.0.0');
    const remoteParent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: new TraceState('vendor=value,other=1'),
    });
    const kinds = [SpanKind.INTERNAL, SpanKind.SERVER, SpanKind.CLIENT, SpanKind.PRODUCER, SpanKind.CONSUMER];
    for (const kind of kinds) {
      const span = tracer.startSpan(`span kind ${kind}`, { kind, attributes: EVERY_VALUE }, remoteParent);
      span.addEvent('an event', { 'event.attr': 'v', 'event.n': 3 });
      span.addEvent('a bare event');
      span.addLink({
        context: {
          traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
          spanId: '00f067aa0ba902b7',
          traceFlags: TraceFlags.NONE,
          isRemote: false,
          traceState: new TraceState('k=v'),
        },
        attributes: { 'link.attr': 'x' },
      });
      if (kind === SpanKind.CLIENT) span.setStatus({ code: SpanStatusCode.ERROR, message: 'it broke: ñ' });
      if (kind === SpanKind.PRODUCER) span.setStatus({ code: SpanStatusCode.OK });
      span.end();
    }
    // A local child (parent not remote) and a span with an explicit, old start time.
    const parent = tracer.startSpan('parent');
    const child = tracer.startSpan('child', {}, trace.setSpan(context.active(), parent));
    child.end();
    parent.end();
    tracer.startSpan('dated', { startTime: [946684800, 123456789] }).end([946684801, 999999999]);
    assertSameBytes(spans());
  });

  it('groups several scopes and resources in one request as the reference does', () => {
    const a = provider({ 'service.name': 'one' });
    const b = provider({ 'service.name': 'two', 'long.attr': 'y'.repeat(1000) });
    a.tp.getTracer('s1').startSpan('a1').end();
    a.tp.getTracer('s2', '2.0.0').startSpan('a2').end();
    b.tp.getTracer('s1').startSpan('b1').end();
    a.tp.getTracer('s1').startSpan('a3').end();
    assertSameBytes([...a.spans(), ...b.spans()]);
  });

  it('encodes a batch larger than its starting buffer (long length prefixes, growth)', () => {
    const { tp, spans } = provider({ 'service.name': 'big' });
    const tracer = tp.getTracer('mcp-toolkit');
    for (let i = 0; i < 600; i++) {
      tracer
        .startSpan(`op ${i}`, { attributes: { payload: 'z'.repeat(i % 7 === 0 ? 20_000 : 100), i } })
        .end();
    }
    const all = spans();
    assertSameBytes(all);
    // Twice: the second call starts from the size the first one learned.
    assertSameBytes(all.slice(0, 10));
    assertSameBytes(all);
  });

  it('returns a buffer of its own for each request (exports may still be in flight)', () => {
    const { tp, spans } = provider({ 'service.name': 'svc' });
    tp.getTracer('t').startSpan('first').end();
    const first = encodeTraceRequest(spans());
    const copy = Buffer.from(first);
    tp.getTracer('t').startSpan('second, and longer').end();
    encodeTraceRequest(spans());
    assert.ok(Buffer.from(first).equals(copy));
  });
});
