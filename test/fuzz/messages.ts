/**
 * JSON-RPC messages for the fuzz generators: requests shaped as each method expects (on the
 * 2025 and the 2026 wire), messages with any field missing or holding any JSON, responses a
 * client may send, and messages aimed at known weak spots (echoed progress tokens, methods
 * named after `Object.prototype` members, deep ids and params, deep `__proto__` bodies).
 */
import fc from 'fast-check';
import { type JsonNode, obj } from './json-text.ts';
import {
  anyJson,
  deepAny,
  deepArb,
  deepObject,
  entries,
  entry,
  idArb,
  keyArb,
  PROTOTYPE_NAMES,
  some,
  V2026,
  weighted,
} from './json-values.ts';

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPS = 'io.modelcontextprotocol/clientCapabilities';

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
  'tasks/get',
  'tasks/list',
  'tasks/result',
  'tasks/update',
  'tasks/cancel',
  'skills/list',
  'skills/get',
  'resources/directory/read',
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
export const TOOL_NAMES = [
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
export const responseArb: fc.Arbitrary<JsonNode> = fc
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
