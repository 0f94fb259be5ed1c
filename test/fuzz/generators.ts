/**
 * The fuzz suite's generators (fast-check arbitraries) for what goes on the wire: payloads
 * (a message, a batch, any JSON, a body over the size limit, text that is not JSON, bytes
 * that are not UTF-8) and, over HTTP, the headers of each POST (media types, sessions,
 * MCP-Protocol-Version, Mcp-Method, Mcp-Name, a header over Node's limit). The messages
 * themselves come from messages.ts. Shared by `npm test` (test/fuzz/*.test.ts) and
 * `npm run fuzz` (scripts/fuzz.ts).
 */
import fc from 'fast-check';
import { arr, type JsonNode, obj, toText } from './json-text.ts';
import { anyJson, idArb, V2026 } from './json-values.ts';
import { adversarialArb, messageArb, plausibleArb, responseArb } from './messages.ts';

/** What one write carries: a JSON text built from a tree, text that is not JSON, or raw bytes. */
export type Payload =
  | { readonly t: 'json'; readonly node: JsonNode }
  | { readonly t: 'text'; readonly text: string }
  | { readonly t: 'bytes'; readonly hex: string };

/** The headers of one POST: which session, which version and routing headers, which media types. */
export interface HeaderPlan {
  readonly contentType: string | null;
  readonly accept: string | null;
  /** `batching`: a session on 2025-03-26 (batches allowed); `current`: one on 2025-11-25. */
  readonly session: 'batching' | 'current' | 'none' | 'unknown' | 'empty';
  /** `match`: the body's `_meta` protocol version, else the session's; null leaves it out. */
  readonly protocolVersion: string | null;
  /** `match` copies the body's method (or name, uri) into the header; `none` leaves it out. */
  readonly mcpMethod: string;
  readonly mcpName: string;
  /** A 20 KB header: over Node's header limit (431). */
  readonly oversizedHeader: boolean;
}

export interface HttpCase {
  readonly payload: Payload;
  readonly headers: HeaderPlan;
}

export interface GeneratorLimits {
  /** The server's MCP_MAX_BODY_BYTES: oversized payloads go just past it. */
  readonly maxBodyBytes: number;
  /** The server's MCP_MAX_BATCH: an oversized batch has one more member. */
  readonly maxBatch: number;
}

export function payloadBytes(p: Payload): Buffer {
  if (p.t === 'json') return Buffer.from(toText(p.node));
  if (p.t === 'text') return Buffer.from(p.text);
  return Buffer.from(p.hex, 'hex');
}

const RAW_TEXTS = [
  '',
  ' ',
  '{',
  '[',
  ']',
  '[]',
  '{}',
  'null',
  'nul',
  'true',
  '"',
  '"unterminated',
  '{"jsonrpc":"2.0","id":1,"method":"ping"',
  '{"jsonrpc":"2.0","id":1,"method":"ping"}}',
  '{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}',
  '{"jsonrpc":"2.0","id":3,"method":"ping"}\r',
  "{'jsonrpc':'2.0','id':1,'method':'ping'}",
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":1,}',
  '[1,]',
  '// comment',
  '\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}',
  '\u0000',
  '{"a":"\u0001"}',
  '01',
  '1.',
  '-',
  '"\\u12"',
  '"\\x41"',
];
/** Bytes that are not UTF-8, alone and inside an otherwise valid message. */
const BYTES = [
  'ff',
  'feff',
  'c328',
  'e282',
  'eda080',
  `${Buffer.from('{"jsonrpc":"2.0","id":"b","method":"ping","params":{"x":"').toString('hex')}ff${Buffer.from('"}}').toString('hex')}`,
  `${Buffer.from('{"jsonrpc":"2.0","id":"').toString('hex')}c0af${Buffer.from('","method":"ping"}').toString('hex')}`,
];

const textArb: fc.Arbitrary<Payload> = fc.oneof(
  fc.constantFrom(...RAW_TEXTS).map((text): Payload => ({ t: 'text', text })),
  fc.string({ maxLength: 20 }).map((text): Payload => ({ t: 'text', text })),
  fc.tuple(messageArb, fc.nat()).map(([m, n]): Payload => {
    const text = toText(m);
    return { t: 'text', text: text.slice(0, n % Math.max(1, text.length)) };
  }),
  fc.constantFrom(...BYTES).map((hex): Payload => ({ t: 'bytes', hex })),
);

/** A body just past MCP_MAX_BODY_BYTES (413 over HTTP, one error per line over stdio). */
const oversizedArb = (limits: GeneratorLimits): fc.Arbitrary<JsonNode> =>
  fc
    .tuple(idArb, fc.integer({ min: 1, max: 4096 }))
    .map(([id, extra]) =>
      obj(
        ['jsonrpc', '2.0'],
        ['id', id],
        ['method', 'tools/call'],
        [
          'params',
          obj(
            ['name', 'read_file'],
            ['arguments', obj(['path', { t: 'pad', bytes: limits.maxBodyBytes + extra }])],
          ),
        ],
      ),
    );

const memberArb: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: plausibleArb, weight: 4 },
  { arbitrary: messageArb, weight: 3 },
  { arbitrary: adversarialArb, weight: 2 },
  { arbitrary: responseArb, weight: 1 },
  { arbitrary: anyJson, weight: 1 },
);

const batchArb = (limits: GeneratorLimits): fc.Arbitrary<JsonNode> =>
  fc.oneof(
    {
      arbitrary: fc
        .array(memberArb, { minLength: 1, maxLength: 6 })
        .map((items): JsonNode => ({ t: 'arr', items })),
      weight: 8,
    },
    { arbitrary: fc.constant(arr()), weight: 1 },
    {
      arbitrary: fc.constant(
        arr(
          ...Array.from({ length: limits.maxBatch + 1 }, (_, i) =>
            obj(['jsonrpc', '2.0'], ['id', i], ['method', 'ping']),
          ),
        ),
      ),
      weight: 1,
    },
  );

/** One payload: a message, an adversarial message, a batch, a response, any JSON, or not JSON. */
export function payloadArb(limits: GeneratorLimits): fc.Arbitrary<Payload> {
  const json = (a: fc.Arbitrary<JsonNode>) => a.map((node): Payload => ({ t: 'json', node }));
  return fc.oneof(
    { arbitrary: json(plausibleArb), weight: 10 },
    { arbitrary: json(messageArb), weight: 6 },
    { arbitrary: json(adversarialArb), weight: 4 },
    { arbitrary: json(batchArb(limits)), weight: 3 },
    { arbitrary: json(responseArb), weight: 1 },
    { arbitrary: json(anyJson), weight: 1 },
    { arbitrary: textArb, weight: 2 },
    { arbitrary: json(oversizedArb(limits)), weight: 1 },
  );
}

const choice = <T>(...options: [T, number][]) =>
  fc.oneof(...options.map(([value, weight]) => ({ arbitrary: fc.constant(value), weight })));

export const headerPlanArb: fc.Arbitrary<HeaderPlan> = fc.record({
  contentType: fc.oneof(
    { arbitrary: fc.constant('application/json'), weight: 20 },
    {
      arbitrary: fc.constantFrom<string | null>(
        null,
        'application/json; charset=utf-8',
        'APPLICATION/JSON',
        'text/plain',
        'application/x-www-form-urlencoded',
        '',
      ),
      weight: 1,
    },
  ),
  accept: choice<string | null>(
    ['application/json, text/event-stream', 8],
    ['application/json', 3],
    ['text/event-stream', 2],
    [null, 1],
    ['text/html', 1],
    ['*/*', 1],
  ),
  session: choice<HeaderPlan['session']>(
    ['batching', 5],
    ['current', 5],
    ['none', 3],
    ['unknown', 1],
    ['empty', 1],
  ),
  protocolVersion: fc.oneof(
    { arbitrary: fc.constant('match'), weight: 6 },
    { arbitrary: fc.constant(null), weight: 3 },
    { arbitrary: fc.constantFrom('2025-03-26', '2025-11-25', V2026), weight: 3 },
    { arbitrary: fc.constantFrom('2024-11-05', '2099-01-01', 'garbage', ''), weight: 1 },
  ),
  mcpMethod: choice(['match', 4], ['none', 2], ['tools/list', 1], ['constructor', 1]),
  mcpName: choice(['match', 4], ['none', 2], ['test_simple_text', 1]),
  oversizedHeader: choice([false, 40], [true, 1]),
});

export const httpCaseArb = (limits: GeneratorLimits): fc.Arbitrary<HttpCase> =>
  fc.record({ payload: payloadArb(limits), headers: headerPlanArb });
