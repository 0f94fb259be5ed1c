/**
 * A tiny OTLP/HTTP receiver for tests: POST /v1/traces and /v1/metrics on 127.0.0.1, in
 * protobuf (`application/x-protobuf`, the exporters' default) or JSON (`http/json`),
 * gzip-compressed or not. The protobuf is decoded for real, by a minimal wire-format reader
 * over the OTLP message definitions (opentelemetry-proto: collector/trace/v1, trace/v1,
 * metrics/v1, common/v1): `@opentelemetry/otlp-transformer` ships serializers only, and
 * test/telemetry/otlp-receiver.test.ts checks this reader against what they write.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };
export type Attrs = Record<string, AttrValue>;

export interface ReceivedSpan {
  readonly name: string;
  /** OTLP `Span.SpanKind` without its prefix: `SERVER`, `CLIENT`, ... */
  readonly kind: string;
  readonly traceId: string;
  readonly spanId: string;
  /** Hex, `undefined` for a root span. */
  readonly parentSpanId: string | undefined;
  readonly attributes: Attrs;
  readonly status: { readonly code: 'UNSET' | 'OK' | 'ERROR'; readonly message: string };
  readonly resource: Attrs;
  readonly scope: string;
  readonly scopeVersion: string;
  /** W3C tracestate carried by the span. */
  readonly traceState: string;
  /** The spans this one links to. */
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  /** Names of the span's events. */
  readonly events: readonly string[];
}

export interface ReceivedPoint {
  readonly attributes: Attrs;
  /** Gauge and sum points. */
  readonly value?: number;
  /** Histogram points. */
  readonly count?: number;
  readonly sum?: number;
}

export interface ReceivedMetric {
  readonly name: string;
  readonly unit: string;
  readonly kind: 'gauge' | 'sum' | 'histogram' | 'exponentialHistogram' | 'summary' | 'unknown';
  readonly points: readonly ReceivedPoint[];
  readonly resource: Attrs;
  readonly scope: string;
}

export interface OtlpReceiver {
  /** Base URL, e.g. `http://127.0.0.1:40123` (what `MCP_OTEL_ENDPOINT` takes). */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly metrics: ReceivedMetric[];
  /** Every export request received, in order. */
  readonly requests: {
    readonly path: string;
    readonly contentType: string;
    readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  }[];
  /** Resolves with the matching spans once `count` (default 1) have arrived; rejects after `timeoutMs`. */
  waitForSpans(
    predicate: (span: ReceivedSpan) => boolean,
    timeoutMs?: number,
    count?: number,
  ): Promise<ReceivedSpan[]>;
  /** Resolves with the first exported metric of that name; rejects after `timeoutMs`. */
  waitForMetric(name: string, timeoutMs?: number): Promise<ReceivedMetric>;
  close(): Promise<void>;
}

const MAX_BODY = 32 * 1024 * 1024;
const SPAN_KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
const STATUS_CODES = ['UNSET', 'OK', 'ERROR'] as const;

// ---- protobuf wire format (https://protobuf.dev/programming-guides/encoding/) ----

interface Field {
  readonly n: number;
  readonly v: bigint | Uint8Array;
}

function parse(buf: Uint8Array): Field[] {
  const fields: Field[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const byte = buf[pos++];
      if (byte === undefined) throw new Error('truncated varint');
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return result;
    }
    throw new Error('varint too long');
  };
  const take = (length: number): Uint8Array => {
    if (pos + length > buf.length) throw new Error('truncated field');
    pos += length;
    return buf.subarray(pos - length, pos);
  };
  while (pos < buf.length) {
    const key = Number(varint());
    const wire = key & 7;
    const n = key >>> 3;
    if (wire === 0) fields.push({ n, v: varint() });
    else if (wire === 1) fields.push({ n, v: take(8) });
    else if (wire === 2) fields.push({ n, v: take(Number(varint())) });
    else if (wire === 5) fields.push({ n, v: take(4) });
    else throw new Error(`unsupported wire type ${wire}`);
  }
  return fields;
}

const bytesOf = (v: bigint | Uint8Array): Uint8Array => (v instanceof Uint8Array ? v : new Uint8Array());
const text = (v: bigint | Uint8Array): string => Buffer.from(bytesOf(v)).toString('utf8');
const hex = (v: bigint | Uint8Array): string => Buffer.from(bytesOf(v)).toString('hex');
const view = (v: bigint | Uint8Array): DataView => {
  const b = bytesOf(v);
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
};
const double = (v: bigint | Uint8Array): number => view(v).getFloat64(0, true);
const fixed64 = (v: bigint | Uint8Array): number => Number(view(v).getBigUint64(0, true));
const sfixed64 = (v: bigint | Uint8Array): number => Number(view(v).getBigInt64(0, true));
const int = (v: bigint | Uint8Array): number => (typeof v === 'bigint' ? Number(BigInt.asIntN(64, v)) : 0);
const all = (fields: Field[], n: number): Field[] => fields.filter((f) => f.n === n);
const one = (fields: Field[], n: number): Field | undefined => fields.find((f) => f.n === n);

/** common.v1.AnyValue: 1 string, 2 bool, 3 int64, 4 double, 5 array, 6 kvlist, 7 bytes. */
function anyValue(buf: Uint8Array): AttrValue {
  const [f] = parse(buf);
  if (f === undefined) return null;
  switch (f.n) {
    case 1:
      return text(f.v);
    case 2:
      return f.v === 1n;
    case 3:
      return int(f.v);
    case 4:
      return double(f.v);
    case 5:
      return all(parse(bytesOf(f.v)), 1).map((item) => anyValue(bytesOf(item.v)));
    case 6:
      return keyValues(parse(bytesOf(f.v)), 1);
    case 7:
      return hex(f.v);
    default:
      return null;
  }
}

/** Repeated common.v1.KeyValue (1 key, 2 value) at field `n`, as a plain object. */
function keyValues(fields: Field[], n: number): Attrs {
  const out: Attrs = {};
  for (const kv of all(fields, n)) {
    const parts = parse(bytesOf(kv.v));
    const key = one(parts, 1);
    const value = one(parts, 2);
    if (key === undefined) continue;
    const name = text(key.v);
    // OTLP (common.proto): keys in one attribute collection MUST be unique.
    if (Object.hasOwn(out, name)) throw new Error(`attribute "${name}" appears twice`);
    out[name] = value === undefined ? null : anyValue(bytesOf(value.v));
  }
  return out;
}

/** The Resource (1 attributes) and InstrumentationScope (1 name) of a ResourceSpans/ScopeSpans-like wrapper. */
function resourceOf(fields: Field[]): Attrs {
  const r = one(fields, 1);
  return r === undefined ? {} : keyValues(parse(bytesOf(r.v)), 1);
}
function scopeOf(fields: Field[], n = 1): string {
  const s = one(fields, 1);
  const name = s === undefined ? undefined : one(parse(bytesOf(s.v)), n);
  return name === undefined ? '' : text(name.v);
}

/** collector.trace.v1.ExportTraceServiceRequest → ResourceSpans(1) → ScopeSpans(2) → Span(2). */
function decodeTraces(body: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of all(parse(body), 1)) {
    const rsFields = parse(bytesOf(rs.v));
    const resource = resourceOf(rsFields);
    for (const ss of all(rsFields, 2)) {
      const ssFields = parse(bytesOf(ss.v));
      const scope = scopeOf(ssFields);
      const scopeVersion = scopeOf(ssFields, 2);
      for (const sp of all(ssFields, 2)) {
        // Span: 1 trace_id, 2 span_id, 3 trace_state, 4 parent_span_id, 5 name, 6 kind,
        // 9 attributes, 11 events (Event: 2 name), 13 links (Link: 1 trace_id, 2 span_id), 15 status.
        const f = parse(bytesOf(sp.v));
        const parent = one(f, 4);
        const status = one(f, 15);
        const statusFields = status === undefined ? [] : parse(bytesOf(status.v));
        const statusCode = one(statusFields, 3);
        const statusMessage = one(statusFields, 2);
        const kind = one(f, 6);
        spans.push({
          name: text(one(f, 5)?.v ?? new Uint8Array()),
          kind: SPAN_KINDS[kind === undefined ? 0 : Number(kind.v)] ?? 'UNSPECIFIED',
          traceId: hex(one(f, 1)?.v ?? new Uint8Array()),
          spanId: hex(one(f, 2)?.v ?? new Uint8Array()),
          parentSpanId: parent === undefined || bytesOf(parent.v).length === 0 ? undefined : hex(parent.v),
          attributes: keyValues(f, 9),
          status: {
            code: STATUS_CODES[statusCode === undefined ? 0 : Number(statusCode.v)] ?? 'UNSET',
            message: statusMessage === undefined ? '' : text(statusMessage.v),
          },
          resource,
          scope,
          scopeVersion,
          traceState: text(one(f, 3)?.v ?? new Uint8Array()),
          links: all(f, 13).map((l) => {
            const lf = parse(bytesOf(l.v));
            return {
              traceId: hex(one(lf, 1)?.v ?? new Uint8Array()),
              spanId: hex(one(lf, 2)?.v ?? new Uint8Array()),
            };
          }),
          events: all(f, 11).map((e) => text(one(parse(bytesOf(e.v)), 2)?.v ?? new Uint8Array())),
        });
      }
    }
  }
  return spans;
}

/** NumberDataPoint: 7 attributes, 4 as_double, 6 as_int. */
function numberPoint(buf: Uint8Array): ReceivedPoint {
  const f = parse(buf);
  const asDouble = one(f, 4);
  const asInt = one(f, 6);
  const value = asDouble !== undefined ? double(asDouble.v) : asInt !== undefined ? sfixed64(asInt.v) : 0;
  return { attributes: keyValues(f, 7), value };
}

/** HistogramDataPoint: 9 attributes, 4 count, 5 sum. */
function histogramPoint(buf: Uint8Array): ReceivedPoint {
  const f = parse(buf);
  const count = one(f, 4);
  const sum = one(f, 5);
  return {
    attributes: keyValues(f, 9),
    count: count === undefined ? 0 : fixed64(count.v),
    ...(sum === undefined ? {} : { sum: double(sum.v) }),
  };
}

/** ExportMetricsServiceRequest → ResourceMetrics(1) → ScopeMetrics(2) → Metric(2). */
function decodeMetrics(body: Uint8Array): ReceivedMetric[] {
  const metrics: ReceivedMetric[] = [];
  for (const rm of all(parse(body), 1)) {
    const rmFields = parse(bytesOf(rm.v));
    const resource = resourceOf(rmFields);
    for (const sm of all(rmFields, 2)) {
      const smFields = parse(bytesOf(sm.v));
      const scope = scopeOf(smFields);
      for (const m of all(smFields, 2)) {
        // Metric: 1 name, 3 unit, 5 gauge, 7 sum, 9 histogram, 10 exponential_histogram, 11 summary.
        const f = parse(bytesOf(m.v));
        const data = f.find((x) => [5, 7, 9, 10, 11].includes(x.n));
        const kind = (
          { 5: 'gauge', 7: 'sum', 9: 'histogram', 10: 'exponentialHistogram', 11: 'summary' } as const
        )[(data?.n ?? 0) as 5] as ReceivedMetric['kind'] | undefined;
        const pointBufs = data === undefined ? [] : all(parse(bytesOf(data.v)), 1).map((p) => bytesOf(p.v));
        const points =
          kind === 'gauge' || kind === 'sum'
            ? pointBufs.map(numberPoint)
            : kind === 'histogram'
              ? pointBufs.map(histogramPoint)
              : [];
        metrics.push({
          name: text(one(f, 1)?.v ?? new Uint8Array()),
          unit: text(one(f, 3)?.v ?? new Uint8Array()),
          kind: kind ?? 'unknown',
          points,
          resource,
          scope,
        });
      }
    }
  }
  return metrics;
}

// ---- OTLP/JSON (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding) ----

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' ? (v as Json) : {});

function jsonAny(v: Json): AttrValue {
  if ('stringValue' in v) return String(v.stringValue);
  if ('boolValue' in v) return v.boolValue === true;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('arrayValue' in v) return list(obj(v.arrayValue).values).map(jsonAny);
  if ('kvlistValue' in v) return jsonAttrs(obj(v.kvlistValue).values);
  return null;
}
function jsonAttrs(v: unknown): Attrs {
  const out: Attrs = {};
  for (const kv of list(v)) out[String(kv.key)] = jsonAny(obj(kv.value));
  return out;
}
function jsonStatus(v: unknown): ReceivedSpan['status'] {
  const s = obj(v);
  const code = typeof s.code === 'number' ? STATUS_CODES[s.code] : undefined;
  return { code: code ?? 'UNSET', message: typeof s.message === 'string' ? s.message : '' };
}

function decodeTracesJson(body: Json): ReceivedSpan[] {
  return list(body.resourceSpans).flatMap((rs) => {
    const resource = jsonAttrs(obj(rs.resource).attributes);
    return list(rs.scopeSpans).flatMap((ss) =>
      list(ss.spans).map((s) => ({
        name: String(s.name ?? ''),
        kind: SPAN_KINDS[Number(s.kind ?? 0)] ?? 'UNSPECIFIED',
        traceId: String(s.traceId ?? ''),
        spanId: String(s.spanId ?? ''),
        parentSpanId:
          typeof s.parentSpanId === 'string' && s.parentSpanId !== '' ? s.parentSpanId : undefined,
        attributes: jsonAttrs(s.attributes),
        status: jsonStatus(s.status),
        resource,
        scope: String(obj(ss.scope).name ?? ''),
        scopeVersion: String(obj(ss.scope).version ?? ''),
        traceState: String(s.traceState ?? ''),
        links: list(s.links).map((l) => ({
          traceId: String(l.traceId ?? ''),
          spanId: String(l.spanId ?? ''),
        })),
        events: list(s.events).map((e) => String(e.name ?? '')),
      })),
    );
  });
}

function decodeMetricsJson(body: Json): ReceivedMetric[] {
  return list(body.resourceMetrics).flatMap((rm) => {
    const resource = jsonAttrs(obj(rm.resource).attributes);
    return list(rm.scopeMetrics).flatMap((sm) =>
      list(sm.metrics).map((m): ReceivedMetric => {
        const kind = (['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary'] as const).find(
          (k) => k in m,
        );
        const points = list(obj(kind === undefined ? undefined : m[kind]).dataPoints).map(
          (p): ReceivedPoint =>
            kind === 'histogram'
              ? { attributes: jsonAttrs(p.attributes), count: Number(p.count ?? 0), sum: Number(p.sum ?? 0) }
              : { attributes: jsonAttrs(p.attributes), value: Number(p.asDouble ?? p.asInt ?? 0) },
        );
        return {
          name: String(m.name ?? ''),
          unit: String(m.unit ?? ''),
          kind: kind ?? 'unknown',
          points,
          resource,
          scope: String(obj(sm.scope).name ?? ''),
        };
      }),
    );
  });
}

// ---- the server ----

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

/**
 * Starts the receiver on a free loopback port.
 *
 * @example
 * const receiver = await startOtlpReceiver();
 * t.after(() => receiver.close());
 * const [span] = await receiver.waitForSpans((s) => s.name === 'tools/call read_file', 5000);
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const waiters = new Set<{ check: () => boolean; fail: (error: Error) => void }>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method !== 'POST' || (path !== '/v1/traces' && path !== '/v1/metrics')) {
      res.writeHead(404).end();
      return;
    }
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const protobuf = contentType === 'application/x-protobuf';
    if (!protobuf && contentType !== 'application/json') {
      res.writeHead(415).end();
      return;
    }
    const body = await readBody(req);
    if (body === undefined) {
      res.writeHead(413).end();
      return;
    }
    requests.push({ path, contentType, headers: { ...req.headers } });
    try {
      if (path === '/v1/traces') {
        spans.push(
          ...(protobuf ? decodeTraces(body) : decodeTracesJson(obj(JSON.parse(body.toString('utf8'))))),
        );
      } else {
        metrics.push(
          ...(protobuf ? decodeMetrics(body) : decodeMetricsJson(obj(JSON.parse(body.toString('utf8'))))),
        );
      }
    } catch (error) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
      return;
    }
    // An empty Export*ServiceResponse means full success (OTLP/HTTP spec, "Success").
    if (protobuf) res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    for (const waiter of waiters) if (waiter.check()) waiters.delete(waiter);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const waitFor = <T>(find: () => T | undefined, timeoutMs: number, describe: () => string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const found = find();
      if (found !== undefined) {
        resolve(found);
        return;
      }
      const waiter = {
        check: (): boolean => {
          const value = find();
          if (value === undefined) return false;
          clearTimeout(timer);
          resolve(value);
          return true;
        },
        fail: (error: Error): void => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`OTLP receiver: timed out after ${timeoutMs} ms waiting for ${describe()}`));
      }, timeoutMs);
      waiters.add(waiter);
    });

  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    requests,
    waitForSpans(predicate, timeoutMs = 5000, count = 1) {
      return waitFor(
        () => {
          const matching = spans.filter(predicate);
          return matching.length >= count ? matching : undefined;
        },
        timeoutMs,
        () => `${count} matching span(s); received: ${JSON.stringify(spans.map((s) => s.name))}`,
      );
    },
    waitForMetric(name, timeoutMs = 5000) {
      return waitFor(
        () => metrics.find((m) => m.name === name),
        timeoutMs,
        () => `metric ${name}; received: ${JSON.stringify([...new Set(metrics.map((m) => m.name))])}`,
      );
    },
    close() {
      for (const waiter of waiters) waiter.fail(new Error('OTLP receiver closed'));
      waiters.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
