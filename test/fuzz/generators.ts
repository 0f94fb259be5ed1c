/**
 * The fuzz suite's generators (fast-check arbitraries): JSON-RPC messages that are right,
 * nearly right and hostile, for both transports. Biased towards messages that get past the
 * envelope checks (so the handlers run), with every JSON type in every field, keys and
 * methods named after `Object.prototype` members, mixed 2025/2026 envelopes, numbers JSON
 * allows and JS cannot hold, nesting from 1 to 50,000 levels, batches, bodies over the size
 * limit, text that is not JSON and bytes that are not UTF-8. Shared by `npm test`
 * (test/fuzz/*.test.ts) and `npm run fuzz` (scripts/fuzz.ts).
 */
import fc from 'fast-check';
import { arr, type JsonNode, obj, toText } from './json-text.ts';

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

export const V2026 = '2026-07-28';
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPS = 'io.modelcontextprotocol/clientCapabilities';

export const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupSetter__',
] as const;

const METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'server/discover',
  'subscriptions/listen',
];
const NOTIFICATIONS = [
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'notifications/message',
];
const NEAR_MISSES = [
  '',
  ' ',
  'tools/CALL',
  'tools/call ',
  'tools',
  '/tools/list',
  'rpc.discover',
  'Ping',
  'a\u0000b',
];
/**
 * Tools of the filesystem and conformance plugins that answer on their own. Left out: the
 * ones that ask the client for input (sampling, elicitation, roots: a fuzzer never answers)
 * and `test_reconnection`, which ends its POST stream on purpose.
 */
const TOOL_NAMES = [
  'test_simple_text',
  'test_error_handling',
  'test_tool_with_progress',
  'test_tool_with_logging',
  'test_image_content',
  'test_embedded_resource',
  'json_schema_2020_12_tool',
  'test_x_mcp_header',
  'list_files',
  'read_file',
  'no_such_tool',
];
const PROMPT_NAMES = ['test_simple_prompt', 'test_prompt_with_arguments', 'test_prompt_with_image'];
const URIS = [
  'test://static-text',
  'test://static-binary',
  'test://watched-resource',
  'test://template/7/data',
  'file:///',
  'file:///../etc/passwd',
  'file:///%2e%2e/x',
  'nope://x',
];
const VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', V2026, '2099-01-01', 'garbage', ''];
const RAW_NUMBERS = [
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '0.0',
  '1E+2',
  '123456789012345678901234567890',
  '9007199254740993',
  '-9007199254740993',
  '1.7976931348623157e308',
  '5e-324',
];

const rawNumber = fc.constantFrom(...RAW_NUMBERS).map((text): JsonNode => ({ t: 'num', text }));

const scalar: fc.Arbitrary<JsonNode> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -3, max: 40 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  rawNumber,
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('', '2.0', V2026, ...PROTOTYPE_NAMES),
);

const keyArb = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      'a',
      'name',
      'arguments',
      'uri',
      '_meta',
      'id',
      'method',
      'params',
      'progressToken',
    ),
    weight: 4,
  },
  // `__proto__` (and `constructor` holding `prototype`) get the HTTP body refused: now and then.
  { arbitrary: fc.constantFrom(...PROTOTYPE_NAMES, 'prototype'), weight: 1 },
  { arbitrary: fc.string({ maxLength: 8 }), weight: 3 },
);

/** Depths below, around and far above a 64-level limit. */
const depthArb = fc.oneof(
  { arbitrary: fc.integer({ min: 1, max: 8 }), weight: 4 },
  { arbitrary: fc.constantFrom(63, 64, 65, 66), weight: 1 },
  { arbitrary: fc.constantFrom(200, 1_000, 5_000, 10_000), weight: 3 },
  // 50,000 arrays are 100 KB: over the body limit, so mostly a test of the size check.
  { arbitrary: fc.constant(50_000), weight: 1 },
);

const deepArb = (
  key: fc.Arbitrary<string>,
  shape = fc.constantFrom('array', 'object', 'mixed') as fc.Arbitrary<'array' | 'object' | 'mixed'>,
): fc.Arbitrary<JsonNode> =>
  fc.record({ depth: depthArb, shape, key, leaf: scalar }).map((d) => ({ t: 'deep', ...d }));

const deepAny = deepArb(fc.constantFrom('a', 'a', 'a', 'params', 'id', '__proto__', 'constructor'));
/** A deep value that is an object at its top (so it can stand where an object belongs). */
const deepObject = deepArb(
  fc.constantFrom('a', 'a', '_meta', '__proto__', 'constructor'),
  fc.constant('object'),
);

/** Any JSON value, a few levels of containers, with the odd very deep one. */
export const anyJson: fc.Arbitrary<JsonNode> = fc.letrec<{ node: JsonNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { arbitrary: scalar, weight: 6 },
    {
      arbitrary: fc.array(tie('node'), { maxLength: 4 }).map((items): JsonNode => ({ t: 'arr', items })),
      weight: 2,
    },
    {
      arbitrary: fc
        .array(fc.tuple(keyArb, tie('node')), { maxLength: 4 })
        .map((entries): JsonNode => ({ t: 'obj', entries })),
      weight: 2,
    },
    { arbitrary: deepAny, weight: 1 },
  ),
})).node;

/** Any JSON, deep only now and then: for fields that should mostly let the message through. */
const mildJson: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: scalar, weight: 4 },
  { arbitrary: anyJson, weight: 1 },
);

/** Any JSON, deep only now and then: for fields that should mostly let the message through. */
const _mildJson: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: scalar, weight: 4 },
  { arbitrary: anyJson, weight: 1 },
);

const extraEntries = fc.array(fc.tuple(keyArb, mildJson), { maxLength: 2 });
const some = <T>(a: fc.Arbitrary<T>, freq = 2) => fc.option(a, { freq, nil: undefined });
const weighted = <T>(good: fc.Arbitrary<T>, goodWeight: number, other: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: good, weight: goodWeight }, { arbitrary: other, weight: 1 });
const entry = (key: string, value: fc.Arbitrary<JsonNode>) =>
  value.map((v): readonly [string, JsonNode] => [key, v]);
const entries = (...parts: fc.Arbitrary<readonly [string, JsonNode] | undefined>[]) =>
  fc.tuple(fc.tuple(...parts), extraEntries).map(
    ([fixed, extra]): JsonNode => ({
      t: 'obj',
      entries: [...fixed.filter((e): e is readonly [string, JsonNode] => e !== undefined), ...extra],
    }),
  );

export const idArb: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: fc.integer({ min: -2, max: 30 }), weight: 4 },
  { arbitrary: fc.string({ maxLength: 10 }), weight: 3 },
  { arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })), weight: 1 },
  { arbitrary: rawNumber, weight: 1 },
  { arbitrary: anyJson, weight: 1 },
);

const methodArb: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: fc.constantFrom(...METHODS), weight: 8 },
  { arbitrary: fc.constantFrom(...NOTIFICATIONS), weight: 2 },
  { arbitrary: fc.constantFrom(...PROTOTYPE_NAMES), weight: 2 },
  { arbitrary: fc.constantFrom(...NEAR_MISSES), weight: 1 },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
  { arbitrary: anyJson, weight: 1 },
);

const progressToken = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), anyJson, deepAny);

/** `params._meta`: the 2026 envelope (whole, partial or wrong), a progress token, trace context. */
export const metaArb: fc.Arbitrary<JsonNode> = fc.oneof(
  entries(
    entry(META_VERSION, fc.constant(V2026)),
    entry(META_CAPS, fc.constant(obj())),
    some(entry('io.modelcontextprotocol/logLevel', weighted(fc.constantFrom('debug', 'error'), 3, anyJson))),
    some(entry('progressToken', progressToken)),
  ),
  entries(
    some(entry(META_VERSION, weighted(fc.constantFrom(...VERSIONS), 3, anyJson))),
    some(entry(META_CAPS, weighted(fc.constant(obj(['sampling', obj()])), 2, anyJson))),
    some(entry('io.modelcontextprotocol/clientInfo', anyJson)),
    some(entry('progressToken', progressToken)),
    some(
      entry('traceparent', fc.constantFrom('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'x')),
    ),
  ),
);

const argumentsArb: fc.Arbitrary<JsonNode> = weighted(
  fc
    .array(fc.tuple(fc.constantFrom('path', 'a', 'b', 'text', 'value'), anyJson), {
      maxLength: 3,
    })
    .map((e): JsonNode => ({ t: 'obj', entries: e })),
  3,
  anyJson,
);

export const paramsArb: fc.Arbitrary<JsonNode> = entries(
  some(
    entry('name', weighted(fc.constantFrom(...TOOL_NAMES, ...PROMPT_NAMES, ...PROTOTYPE_NAMES), 4, anyJson)),
  ),
  some(entry('arguments', argumentsArb)),
  some(entry('uri', weighted(fc.constantFrom(...URIS), 3, anyJson)), 3),
  some(entry('cursor', anyJson), 6),
  some(entry('protocolVersion', weighted(fc.constantFrom(...VERSIONS), 3, anyJson)), 4),
  some(entry('capabilities', weighted(fc.constant(obj()), 2, anyJson)), 4),
  some(entry('level', weighted(fc.constantFrom('debug', 'info', 'emergency', 'loud'), 2, anyJson)), 5),
  some(entry('requestId', idArb), 5),
  some(
    entry(
      'ref',
      weighted(fc.constant(obj(['type', 'ref/prompt'], ['name', 'test_prompt_with_arguments'])), 2, anyJson),
    ),
    6,
  ),
  some(entry('argument', weighted(fc.constant(obj(['name', 'arg1'], ['value', 'a'])), 2, anyJson)), 6),
  some(entry('_meta', weighted(metaArb, 4, anyJson))),
);

/** A JSON-RPC message, mostly well-formed; any field may be missing or hold any JSON. */
export const messageArb: fc.Arbitrary<JsonNode> = fc
  .record({
    jsonrpc: some(weighted(fc.constant('2.0'), 12, anyJson), 20),
    id: some(idArb, 3),
    method: some(methodArb, 25),
    params: some(weighted(paramsArb, 9, anyJson), 5),
    response: some(fc.tuple(fc.constantFrom('result', 'error'), anyJson), 12),
    extra: fc.array(fc.tuple(keyArb, anyJson), { maxLength: 1 }),
    idLast: fc.boolean(),
  })
  .map((m): JsonNode => {
    const out: (readonly [string, JsonNode])[] = [];
    if (m.jsonrpc !== undefined) out.push(['jsonrpc', m.jsonrpc]);
    if (m.id !== undefined && !m.idLast) out.push(['id', m.id]);
    if (m.method !== undefined) out.push(['method', m.method]);
    if (m.params !== undefined) out.push(['params', m.params]);
    if (m.response !== undefined) out.push(m.response);
    out.push(...m.extra);
    if (m.id !== undefined && m.idLast) out.push(['id', m.id]);
    return { t: 'obj', entries: out };
  });

const ENVELOPE_2026: readonly (readonly [string, JsonNode])[] = [
  [META_VERSION, V2026],
  [META_CAPS, obj()],
];
/** `_meta` of a plausible request: none, a 2026 envelope, a progress token, or both. */
const plausibleMeta = fc
  .tuple(fc.boolean(), some(fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: 0, max: 99 }))))
  .map(([modern, token]): JsonNode | undefined => {
    const out: (readonly [string, JsonNode])[] = modern ? [...ENVELOPE_2026] : [];
    if (token !== undefined) out.push(['progressToken', token]);
    return out.length === 0 ? undefined : { t: 'obj', entries: out };
  });
const withMeta = (params: fc.Arbitrary<(readonly [string, JsonNode])[]>) =>
  fc
    .tuple(params, plausibleMeta)
    .map(([p, meta]): JsonNode => obj(...p, ...(meta ? [['_meta', meta] as const] : [])));
const call = (method: string, params: fc.Arbitrary<(readonly [string, JsonNode])[]>) =>
  request(idArb, fc.constant(method), withMeta(params));
const none = fc.constant<(readonly [string, JsonNode])[]>([]);

/** Requests shaped as each method expects, on the 2025 or the 2026 wire: they reach the handlers. */
export const plausibleArb: fc.Arbitrary<JsonNode> = fc.oneof(
  call(
    'tools/call',
    fc
      .tuple(fc.constantFrom(...TOOL_NAMES), weighted(fc.constant(obj(['path', '.'])), 2, argumentsArb))
      .map(([name, args]) => [['name', name] as const, ['arguments', args] as const]),
  ),
  call(
    'prompts/get',
    fc
      .constantFrom(...PROMPT_NAMES)
      .map((name) => [['name', name] as const, ['arguments', obj(['arg1', 'a'], ['arg2', 'b'])] as const]),
  ),
  call(
    'resources/read',
    fc.constantFrom(...URIS).map((uri) => [['uri', uri] as const]),
  ),
  fc
    .constantFrom(
      'tools/list',
      'prompts/list',
      'resources/list',
      'resources/templates/list',
      'server/discover',
      'ping',
    )
    .chain((m) => call(m, none)),
  call(
    'logging/setLevel',
    fc.constantFrom('debug', 'info', 'error').map((level) => [['level', level] as const]),
  ),
  call(
    'completion/complete',
    fc.constant([
      ['ref', obj(['type', 'ref/prompt'], ['name', 'test_prompt_with_arguments'])] as const,
      ['argument', obj(['name', 'arg1'], ['value', 'a'])] as const,
    ]),
  ),
  call(
    'resources/subscribe',
    fc.constantFrom(...URIS).map((uri) => [['uri', uri] as const]),
  ),
  request(
    fc.constant(undefined),
    fc.constantFrom('notifications/initialized', 'notifications/roots/list_changed'),
    fc.constant(undefined),
  ),
  request(
    fc.constant(undefined),
    fc.constant('notifications/cancelled'),
    idArb.map((id) => obj(['requestId', id])),
  ),
);

/** Response-shaped messages a client may send (answers to server requests), right and wrong. */
const responseArb: fc.Arbitrary<JsonNode> = fc
  .record({
    id: weighted(idArb, 3, fc.constant(null)),
    result: some(anyJson),
    error: some(weighted(fc.constant(obj(['code', -32601], ['message', 'no'])), 2, anyJson)),
  })
  .map(({ id, result, error }): JsonNode => {
    const out: (readonly [string, JsonNode])[] = [
      ['jsonrpc', '2.0'],
      ['id', id],
    ];
    if (result !== undefined) out.push(['result', result]);
    if (error !== undefined || result === undefined) out.push(['error', error ?? obj()]);
    return { t: 'obj', entries: out };
  });

function request(
  id: fc.Arbitrary<JsonNode | undefined>,
  method: fc.Arbitrary<JsonNode>,
  params: fc.Arbitrary<JsonNode | undefined>,
): fc.Arbitrary<JsonNode> {
  return fc.tuple(id, method, params).map(([i, m, p]) => {
    const out: (readonly [string, JsonNode])[] = [['jsonrpc', '2.0']];
    if (i !== undefined) out.push(['id', i]);
    out.push(['method', m]);
    if (p !== undefined) out.push(['params', p]);
    return { t: 'obj', entries: out };
  });
}

const optionalId = some(idArb, 5);

/**
 * Messages aimed at known weak spots: a progress token echoed into a notification, methods
 * that live on `Object.prototype`, deep ids and params, a deep body full of `__proto__`.
 */
export const adversarialArb: fc.Arbitrary<JsonNode> = fc.oneof(
  request(
    idArb,
    fc.constant('tools/call'),
    fc
      .tuple(deepAny, fc.boolean())
      .map(([token, modern]) =>
        obj(
          ['name', 'test_tool_with_progress'],
          ['arguments', obj()],
          [
            '_meta',
            modern
              ? obj([META_VERSION, V2026], [META_CAPS, obj()], ['progressToken', token])
              : obj(['progressToken', token]),
          ],
        ),
      ),
  ),
  request(optionalId, fc.constantFrom(...PROTOTYPE_NAMES), some(weighted(deepObject, 2, anyJson))),
  request(deepAny, fc.constantFrom('ping', 'tools/list', 'tools/call'), some(paramsArb)),
  request(idArb, fc.constantFrom(...METHODS, ...NOTIFICATIONS), deepObject),
  request(
    idArb,
    fc.constantFrom('tools/call', 'prompts/get'),
    fc
      .tuple(deepAny, metaArb)
      .map(([args, meta]) => obj(['name', 'test_simple_text'], ['arguments', args], ['_meta', meta])),
  ),
  request(
    some(idArb, 4),
    fc.constantFrom('tools/list', 'notifications/initialized'),
    deepArb(fc.constant('__proto__'), fc.constant('object')),
  ),
);

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
