/**
 * OTLP/protobuf encoding of finished spans (`ExportTraceServiceRequest`, opentelemetry-proto
 * `collector/trace/v1`), for the OTLP/HTTP exporter's delegate (otlp-telemetry.ts).
 *
 * Why our own: it runs for every request a traced server answers. The reference serializer
 * (`ProtobufTraceSerializer` of @opentelemetry/otlp-transformer) walks each batch twice (a
 * size estimate, then the write) and copies every id through a fresh Uint8Array; it cost
 * 4.4 µs per span here, more than the span's own life in the SDK (3.4 µs). This one writes
 * in one pass into one buffer, ids through Buffer's native hex decoder: about 1 µs. The
 * output is byte for byte the reference's (same fields, same order, same defaults), which
 * test/telemetry/otlp-span-encoder.test.ts checks against it over every kind of value.
 */
import type { HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';

type Value = unknown;
type Attrs = Readonly<Record<string, Value>>;

// Wire types.
const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

// Span.flags (SpanFlags): the low byte is the W3C trace flags; bit 8 says bit 9 is known,
// bit 9 that the parent was remote.
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

const TWO_32 = 4294967296;
const MIN_INT64 = -(2 ** 63);
const MAX_INT64 = 2 ** 63;

/** A growing byte buffer with protobuf primitives; length prefixes are reserved, then fixed up. */
class Writer {
  buf: Buffer;
  pos = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  ensure(n: number): void {
    const needed = this.pos + n;
    if (needed <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < needed) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** A varint of a value in 0 ... 2^32-1. */
  uint32(v: number): void {
    this.ensure(5);
    const b = this.buf;
    let x = v >>> 0;
    while (x > 127) {
      b[this.pos++] = (x & 127) | 128;
      x >>>= 7;
    }
    b[this.pos++] = x;
  }

  tag(field: number, wire: number): void {
    this.uint32((field << 3) | wire);
  }

  /** An int64 varint (negative numbers as ten-byte two's complement, as protobuf says). */
  int64(value: number): void {
    if (value >= 0 && value < TWO_32) {
      this.uint32(value);
      return;
    }
    let low: number;
    let high: number;
    if (value >= 0) {
      low = value >>> 0;
      high = (value / TWO_32) >>> 0;
    } else {
      const abs = -value;
      low = ~(abs >>> 0) >>> 0;
      high = ~((abs / TWO_32) >>> 0) >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    this.ensure(10);
    const b = this.buf;
    while (high > 0 || low > 127) {
      b[this.pos++] = (low & 127) | 128;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    b[this.pos++] = low;
  }

  fixed32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(v >>> 0, this.pos);
    this.pos += 4;
  }

  double(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  /** An HrTime `[seconds, nanoseconds]` as fixed64 nanoseconds since the epoch, exactly. */
  time(t: HrTime): void {
    const seconds = t[0];
    // seconds = hi * 2^16 + lo; total = hi * 1e9 * 2^16 + (lo * 1e9 + nanos). Each product
    // below stays under 2^53, so every step is exact in a double.
    const hi = Math.floor(seconds / 65536);
    const lo = seconds - hi * 65536;
    const upper = hi * 1e9; // < 2^46
    const upperLow = upper % TWO_32;
    const upperHigh = Math.floor(upper / TWO_32);
    const low48 = upperLow * 65536 + lo * 1e9 + t[1]; // < 2^53
    this.ensure(8);
    this.buf.writeUInt32LE(low48 % TWO_32, this.pos);
    this.buf.writeUInt32LE((upperHigh * 65536 + Math.floor(low48 / TWO_32)) >>> 0, this.pos + 4);
    this.pos += 8;
  }

  /**
   * Reserves `reserve` bytes for a length prefix and returns where; `end` writes the length
   * there, moving the body when its varint needs a different number of bytes.
   */
  begin(reserve = 1): number {
    this.ensure(reserve);
    const at = this.pos;
    this.buf[at] = reserve; // remembered until end()
    this.pos += reserve;
    return at;
  }

  end(at: number): void {
    const reserve = this.buf[at]!;
    const length = this.pos - at - reserve;
    let size = 1;
    for (let v = length >>> 7; v > 0; v >>>= 7) size++;
    if (size !== reserve) {
      if (size > reserve) this.ensure(size - reserve);
      this.buf.copyWithin(at + size, at + reserve, this.pos);
      this.pos += size - reserve;
    }
    const b = this.buf;
    let p = at;
    let v = length;
    while (v > 127) {
      b[p++] = (v & 127) | 128;
      v >>>= 7;
    }
    b[p] = v;
  }

  string(s: string): void {
    const n = s.length;
    // Short ASCII strings (names, keys, most values) are copied by hand; the rest by Buffer's
    // UTF-8 encoder, which also turns lone surrogates into U+FFFD as TextEncoder does.
    if (n < 128) {
      this.ensure(n + 1);
      const b = this.buf;
      const start = this.pos + 1;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 127) break;
        b[start + i] = c;
      }
      if (i === n) {
        b[this.pos] = n;
        this.pos = start + n;
        return;
      }
    }
    const bytes = Buffer.byteLength(s, 'utf8');
    this.uint32(bytes);
    this.ensure(bytes);
    this.pos += this.buf.write(s, this.pos, bytes, 'utf8');
  }

  /** A hex id (trace or span id) as bytes. */
  hexId(hex: string): void {
    const n = hex.length >>> 1;
    this.uint32(n);
    this.ensure(n);
    this.pos += this.buf.write(hex, this.pos, n, 'hex');
  }

  bytes(data: Uint8Array): void {
    this.uint32(data.length);
    this.ensure(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }
}

function anyValue(w: Writer, value: Value): void {
  switch (typeof value) {
    case 'string':
      w.tag(1, LEN);
      w.string(value);
      return;
    case 'boolean':
      w.tag(2, VARINT);
      w.uint32(value ? 1 : 0);
      return;
    case 'number':
      if (Number.isInteger(value) && value >= MIN_INT64 && value < MAX_INT64) {
        w.tag(3, VARINT);
        w.int64(value);
      } else {
        w.tag(4, I64);
        w.double(value);
      }
      return;
    default:
      break;
  }
  if (value instanceof Uint8Array) {
    w.tag(7, LEN);
    w.bytes(value);
  } else if (Array.isArray(value)) {
    w.tag(5, LEN);
    const array = w.begin();
    for (const item of value) {
      w.tag(1, LEN);
      const at = w.begin();
      anyValue(w, item);
      w.end(at);
    }
    w.end(array);
  } else if (typeof value === 'object' && value !== null) {
    w.tag(6, LEN);
    const list = w.begin();
    attributes(w, value as Attrs, 1);
    w.end(list);
  }
}

/** `repeated KeyValue` under `field`. */
function attributes(w: Writer, attrs: Attrs, field: number): void {
  for (const key in attrs) {
    if (!Object.hasOwn(attrs, key)) continue;
    w.tag(field, LEN);
    const kv = w.begin();
    w.tag(1, LEN);
    w.string(key);
    w.tag(2, LEN);
    const value = w.begin();
    anyValue(w, attrs[key]);
    w.end(value);
    w.end(kv);
  }
}

function spanFlags(traceFlags: number, isRemote: boolean | undefined): number {
  return (traceFlags & 0xff) | HAS_IS_REMOTE | (isRemote ? IS_REMOTE : 0);
}

function span(w: Writer, s: ReadableSpan): void {
  const ctx = s.spanContext();
  w.tag(1, LEN);
  w.hexId(ctx.traceId);
  w.tag(2, LEN);
  w.hexId(ctx.spanId);
  const traceState = ctx.traceState?.serialize();
  if (traceState) {
    w.tag(3, LEN);
    w.string(traceState);
  }
  const parent = s.parentSpanContext;
  if (parent?.spanId) {
    w.tag(4, LEN);
    w.hexId(parent.spanId);
  }
  w.tag(5, LEN);
  w.string(s.name);
  // SpanKind in the API starts at INTERNAL = 0; in the proto 0 is UNSPECIFIED.
  const kind = s.kind == null ? 0 : s.kind + 1;
  if (kind !== 0) {
    w.tag(6, VARINT);
    w.uint32(kind);
  }
  w.tag(7, I64);
  w.time(s.startTime);
  w.tag(8, I64);
  w.time(s.endTime);
  if (s.attributes) attributes(w, s.attributes, 9);
  w.tag(10, VARINT);
  w.uint32(s.droppedAttributesCount);
  for (const event of s.events) {
    w.tag(11, LEN);
    const at = w.begin();
    w.tag(1, I64);
    w.time(event.time);
    w.tag(2, LEN);
    w.string(event.name);
    if (event.attributes) attributes(w, event.attributes, 3);
    w.tag(4, VARINT);
    w.uint32(event.droppedAttributesCount || 0);
    w.end(at);
  }
  w.tag(12, VARINT);
  w.uint32(s.droppedEventsCount);
  for (const link of s.links) {
    w.tag(13, LEN);
    const at = w.begin();
    w.tag(1, LEN);
    w.hexId(link.context.traceId);
    w.tag(2, LEN);
    w.hexId(link.context.spanId);
    const linkState = link.context.traceState?.serialize();
    if (linkState) {
      w.tag(3, LEN);
      w.string(linkState);
    }
    if (link.attributes) attributes(w, link.attributes, 4);
    w.tag(5, VARINT);
    w.uint32(link.droppedAttributesCount || 0);
    w.tag(6, I32);
    w.fixed32(spanFlags(link.context.traceFlags, link.context.isRemote));
    w.end(at);
  }
  w.tag(14, VARINT);
  w.uint32(s.droppedLinksCount);
  w.tag(15, LEN);
  const status = w.begin();
  if (s.status.message) {
    w.tag(2, LEN);
    w.string(s.status.message);
  }
  w.tag(3, VARINT);
  w.uint32(s.status.code);
  w.end(status);
  w.tag(16, I32);
  w.fixed32(spanFlags(ctx.traceFlags, parent?.isRemote));
}

type Scope = ReadableSpan['instrumentationScope'];
type Resource = ReadableSpan['resource'];

function scope(w: Writer, sc: Scope): void {
  w.tag(1, LEN);
  const at = w.begin();
  w.tag(1, LEN);
  w.string(sc.name);
  if (sc.version) {
    w.tag(2, LEN);
    w.string(sc.version);
  }
  const extra = sc as Scope & { attributes?: Attrs; droppedAttributesCount?: number };
  if (extra.attributes) attributes(w, extra.attributes, 3);
  if (extra.droppedAttributesCount) {
    w.tag(4, VARINT);
    w.uint32(extra.droppedAttributesCount);
  }
  w.end(at);
}

/** Groups spans by resource, then scope, by identity (the SDK shares both objects). */
function group(spans: readonly ReadableSpan[]): Map<Resource, Map<Scope, ReadableSpan[]>> {
  const byResource = new Map<Resource, Map<Scope, ReadableSpan[]>>();
  for (const s of spans) {
    let byScope = byResource.get(s.resource);
    if (byScope === undefined) {
      byScope = new Map();
      byResource.set(s.resource, byScope);
    }
    let list = byScope.get(s.instrumentationScope);
    if (list === undefined) {
      list = [];
      byScope.set(s.instrumentationScope, list);
    }
    list.push(s);
  }
  return byResource;
}

/** Starts each export with room for a batch like the last one, so a batch rarely grows. */
let lastSize = 64 * 1024;

/**
 * Encodes an `ExportTraceServiceRequest` holding `spans`. The result is a fresh buffer the
 * caller may keep (exports run concurrently).
 */
export function encodeTraceRequest(spans: readonly ReadableSpan[]): Uint8Array {
  const w = new Writer(lastSize);
  for (const [resource, scopes] of group(spans)) {
    w.tag(1, LEN);
    const resourceSpans = w.begin(3); // a batch is up to 2 MiB
    w.tag(1, LEN);
    const res = w.begin();
    if (resource.attributes) attributes(w, resource.attributes, 1);
    w.tag(2, VARINT);
    w.uint32(0);
    w.end(res);
    for (const [sc, list] of scopes) {
      w.tag(2, LEN);
      const scopeSpans = w.begin(3);
      scope(w, sc);
      for (const s of list) {
        w.tag(2, LEN);
        const at = w.begin(2); // a span is 128 B to 16 KiB
        span(w, s);
        w.end(at);
      }
      if (sc.schemaUrl) {
        w.tag(3, LEN);
        w.string(sc.schemaUrl);
      }
      w.end(scopeSpans);
    }
    if (resource.schemaUrl) {
      w.tag(3, LEN);
      w.string(resource.schemaUrl);
    }
    w.end(resourceSpans);
  }
  lastSize = Math.max(1024, Math.ceil(w.pos * 1.25));
  return w.buf.subarray(0, w.pos);
}
