/**
 * JSON values for the fuzz generators: scalars JSON allows and JS cannot hold (`1e400`, 30
 * digits, `-0`), strings with lone surrogates, keys named after `Object.prototype` members,
 * values nested from 1 to 50,000 levels, and the small combinators the message generators
 * are built from.
 */
import fc from 'fast-check';
import type { JsonNode } from './json-text.ts';

export const V2026 = '2026-07-28';

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
  '12345678901234567890',
  '12345678901234567891',
  '-98765432109876543210',
  '1234567890123456',
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

export const keyArb = fc.oneof(
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

export const deepArb = (
  key: fc.Arbitrary<string>,
  shape = fc.constantFrom('array', 'object', 'mixed') as fc.Arbitrary<'array' | 'object' | 'mixed'>,
): fc.Arbitrary<JsonNode> =>
  fc.record({ depth: depthArb, shape, key, leaf: scalar }).map((d) => ({ t: 'deep', ...d }));

export const deepAny = deepArb(fc.constantFrom('a', 'a', 'a', 'params', 'id', '__proto__', 'constructor'));
/** A deep value that is an object at its top (so it can stand where an object belongs). */
export const deepObject = deepArb(
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

const extraEntries = fc.array(fc.tuple(keyArb, mildJson), { maxLength: 2 });
export const some = <T>(a: fc.Arbitrary<T>, freq = 2) => fc.option(a, { freq, nil: undefined });
export const weighted = <T>(good: fc.Arbitrary<T>, goodWeight: number, other: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: good, weight: goodWeight }, { arbitrary: other, weight: 1 });
export const entry = (key: string, value: fc.Arbitrary<JsonNode>) =>
  value.map((v): readonly [string, JsonNode] => [key, v]);
export const entries = (...parts: fc.Arbitrary<readonly [string, JsonNode] | undefined>[]) =>
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
  // Integers JS numbers cannot hold: the answer must carry the same digits.
  {
    arbitrary: fc
      .bigInt({ min: -(10n ** 25n), max: 10n ** 25n })
      .filter((n) => n > BigInt(Number.MAX_SAFE_INTEGER) || n < -BigInt(Number.MAX_SAFE_INTEGER))
      .map((n): JsonNode => ({ t: 'num', text: String(n) })),
    weight: 1,
  },
  { arbitrary: anyJson, weight: 1 },
);
