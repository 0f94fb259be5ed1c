/**
 * The schema machinery behind the generated tests: dialects (draft-07, 2020-12), formats, the
 * field walk at every depth, the value tables, and wrong-typed values.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { invalidTypes, missingDescriptions, walkProperties } from '../../src/testing/schema/fields.ts';
import { compileSchema, dialectOf, validateValue } from '../../src/testing/schema/json-schema.ts';
import { patternSamples } from '../../src/testing/schema/pattern.ts';
import { outOfRange } from '../../src/testing/schema/probes.ts';
import {
  FORMAT_VALUES,
  generateInputs,
  INTEGER_VALUES,
  STRING_VALUES,
  wrongValue,
} from '../../src/testing/schema/values.ts';

describe('json-schema', () => {
  test('reads the dialect from $schema; none means 2020-12', () => {
    assert.equal(dialectOf({ $schema: 'http://json-schema.org/draft-07/schema#' }), 'draft-07');
    assert.equal(dialectOf({ $schema: 'https://json-schema.org/draft/2020-12/schema' }), '2020-12');
    assert.equal(dialectOf({}), '2020-12');
  });

  test('validates draft-07 and 2020-12 keywords by their own rules', () => {
    // draft-07 `items` as an array is a tuple; 2020-12 spells that prefixItems.
    const tuple07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'array',
      items: [{ type: 'string' }],
      additionalItems: false,
    };
    assert.deepEqual(validateValue(tuple07, ['a']), []);
    assert.notDeepEqual(validateValue(tuple07, ['a', 'b']), []);
    const tuple20 = { type: 'array', prefixItems: [{ type: 'string' }], items: false };
    assert.deepEqual(validateValue(tuple20, ['a']), []);
    assert.notDeepEqual(validateValue(tuple20, ['a', 1]), []);
  });

  test('asserts formats and reports where a value breaks the schema', () => {
    const schema = {
      type: 'object',
      properties: { to: { type: 'string', format: 'email' } },
      required: ['to'],
    };
    assert.deepEqual(validateValue(schema, { to: 'ada@example.com' }), []);
    assert.match(validateValue(schema, { to: 'claude@ai' }).join(), /to must match format "email"/);
    assert.match(validateValue(schema, {}).join(), /must have required property 'to'/);
  });

  test('an invalid schema is reported, not thrown; schemas with the same $id never collide', () => {
    const bad = compileSchema({ type: 'object', properties: { a: { type: 'str' } } });
    assert.equal(bad.ok, false);
    const a = { $id: 'https://example.com/s', type: 'string' };
    const b = { $id: 'https://example.com/s', type: 'number' };
    assert.deepEqual(validateValue(a, 'x'), []);
    assert.deepEqual(validateValue(b, 1), []);
  });
});

describe('the field walk', () => {
  const schema = {
    type: 'object',
    $defs: { point: { type: 'object', properties: { x: { type: 'number' } } } },
    properties: {
      name: { type: 'string', description: 'Name' },
      address: {
        type: 'object',
        description: 'Address',
        properties: { city: { type: 'string' }, zip: { type: 'integr', description: 'Zip' } },
      },
      tags: {
        type: 'array',
        description: 'Tags',
        items: { type: 'object', properties: { label: { description: 'Label' } } },
      },
      where: { $ref: '#/$defs/point', description: 'A point' },
      maybe: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Nullable' },
      colour: { enum: ['red', 'blue'], description: 'Colour' },
    },
  };

  test('visits every property at every depth, through items and $ref', () => {
    assert.deepEqual(
      walkProperties(schema).map((v) => v.path),
      [
        'name',
        'address',
        'address.city',
        'address.zip',
        'tags',
        'tags[].label',
        'where',
        'where.x',
        'maybe',
        'colour',
      ],
    );
  });

  test('finds missing descriptions and invalid or missing types, nested included', () => {
    assert.deepEqual(missingDescriptions(schema), ['address.city', 'where.x']);
    assert.deepEqual(invalidTypes(schema), [
      'address.zip has an invalid type "integr"',
      'tags[].label has no type',
    ]);
  });
});

describe('generated inputs', () => {
  test('case 0 is the simplest valid input; then one field at a time through its table', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Name' },
        count: { type: 'integer', minimum: 1, maximum: 9, description: 'Count' },
        colour: { type: 'string', enum: ['red', 'blue'], description: 'Colour' },
      },
      required: ['name', 'count'],
    };
    const g = generateInputs(schema);
    assert.ok(g.ok);
    assert.deepEqual(g.cases[0], { label: 'basic', args: { name: 'hello', count: 1 } });
    const labels = g.cases.map((c) => c.label);
    for (const s of STRING_VALUES.slice(1)) assert.ok(labels.includes(`name=${JSON.stringify(s)}`), s);
    // Bounded integers: minimum (the basic case), maximum, midpoint; 0 is outside [1, 9] and dropped.
    assert.deepEqual(
      g.cases.filter((c) => c.label.startsWith('count=')).map((c) => c.args.count),
      [9, 5],
    );
    assert.deepEqual(
      g.cases.filter((c) => c.label.startsWith('colour=')).map((c) => c.args.colour),
      ['red', 'blue'],
    );
    for (const c of g.cases) assert.deepEqual(validateValue(schema, c.args), [], c.label);
  });

  test('formats use well-formed values; unbounded integers use the integer table', () => {
    const schema = {
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date-time' },
        at: { type: 'string', format: 'time' },
        n: { type: 'integer' },
      },
      required: ['when'],
    };
    const g = generateInputs(schema);
    assert.ok(g.ok);
    assert.equal(
      g.cases.filter((c) => c.label.startsWith('when=')).length,
      FORMAT_VALUES['date-time']!.length - 1,
    );
    assert.equal(g.cases.filter((c) => c.label.startsWith('at=')).length, FORMAT_VALUES.time!.length);
    assert.deepEqual(
      g.cases.filter((c) => c.label.startsWith('n=')).map((c) => c.args.n),
      [...INTEGER_VALUES],
    );
  });

  test('a schema no generated value satisfies yields a reason, not an invalid call', () => {
    const g = generateInputs({
      type: 'object',
      properties: { code: { type: 'string', pattern: '^a$', minLength: 5 } },
      required: ['code'],
    });
    assert.equal(g.ok, false);
    assert.match(g.ok ? '' : g.problem, /"code"/);
  });

  test('a required string with a pattern gets values that match it, the same on every run', () => {
    const schema = {
      type: 'object',
      properties: {
        code: { type: 'string', pattern: '^[A-Z]{3}-\\d{2,4}$' },
        slug: { type: 'string', pattern: '^(draft|final)_[a-z0-9]+$', maxLength: 12 },
      },
      required: ['code', 'slug'],
    };
    const g = generateInputs(schema);
    assert.ok(g.ok, g.ok ? '' : g.problem);
    assert.deepEqual(g.cases[0]?.args, { code: 'AAA-00', slug: 'draft_0' });
    const codes = g.cases.filter((c) => c.label.startsWith('code=')).map((c) => c.args.code);
    assert.ok(codes.length >= 1, JSON.stringify(g.cases));
    for (const c of g.cases) assert.deepEqual(validateValue(schema, c.args), [], c.label);
    assert.deepEqual(generateInputs(schema), g);
    assert.deepEqual(patternSamples('^x{2}$'), ['xx']);
    assert.deepEqual(patternSamples('(unclosed'), []);
  });

  test('nested fields vary one at a time, array items included', () => {
    const schema = {
      type: 'object',
      properties: {
        note: {
          type: 'object',
          properties: {
            text: { type: 'string' },
            tags: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' } } } },
          },
          required: ['text'],
        },
      },
      required: ['note'],
    };
    const g = generateInputs(schema);
    assert.ok(g.ok);
    const labels = g.cases.map((c) => c.label);
    assert.ok(labels.includes('note.text="你好，世界"'), labels.join('\n'));
    assert.ok(labels.includes(`note.tags[0].label=${JSON.stringify("it's")}`), labels.join('\n'));
    const tagged = g.cases.find((c) => c.label === 'note.tags[0].label="hello"');
    assert.deepEqual(tagged?.args, { note: { text: 'hello', tags: [{ label: 'hello' }] } });
  });

  test('length and item bounds are sent; huge lengths only with fuzz', () => {
    const schema = {
      type: 'object',
      properties: {
        s: { type: 'string', minLength: 6, maxLength: 9 },
        list: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3 },
        big: { type: 'string', maxLength: 5000 },
      },
    };
    const g = generateInputs(schema);
    assert.ok(g.ok);
    const values = (k: string) => g.cases.filter((c) => c.label.startsWith(`${k}=`)).map((c) => c.args[k]);
    assert.ok(
      values('s').includes('xxxxxx') && values('s').includes('xxxxxxxxx'),
      JSON.stringify(values('s')),
    );
    assert.deepEqual(values('list'), [[0], [0, 0, 0]]);
    assert.ok(!values('big').some((v) => typeof v === 'string' && v.length === 5000));
    const fuzzed = generateInputs(schema, { fuzz: true });
    assert.ok(fuzzed.ok && fuzzed.cases.some((c) => (c.args.big as string | undefined)?.length === 5000));
  });

  test('if/then/else and oneOf: a branch is picked, and every case validates', () => {
    const conditional = {
      type: 'object',
      properties: {
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string', format: 'email' },
      },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword (if/then/else); never awaited.
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    };
    const g = generateInputs(conditional);
    assert.ok(g.ok, g.ok ? '' : g.problem);
    assert.deepEqual(g.cases[0]?.args, { phone: 'hello', contactMethod: 'phone' });
    for (const c of g.cases) assert.deepEqual(validateValue(conditional, c.args), [], c.label);
    const union = {
      type: 'object',
      properties: {
        target: {
          oneOf: [
            { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] },
            { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
          ],
        },
      },
      required: ['target'],
    };
    const u = generateInputs(union);
    assert.ok(u.ok, u.ok ? '' : u.problem);
    assert.deepEqual(u.cases[0]?.args, { target: { id: 1 } });
  });

  test('out-of-range probes sit just outside each bound and break the field schema', () => {
    const schema = {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 1, maximum: 5 },
        x: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
        s: { type: 'string', minLength: 2, maxLength: 4 },
        p: { type: 'string', pattern: '^[a-z]+$' },
        list: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 },
        free: { type: 'string' },
      },
    };
    assert.deepEqual(outOfRange(schema, 'n'), [
      { kind: 'below_minimum', value: 0 },
      { kind: 'above_maximum', value: 6 },
    ]);
    assert.deepEqual(outOfRange(schema, 'x'), [
      { kind: 'below_minimum', value: 0 },
      { kind: 'above_maximum', value: 1 },
    ]);
    assert.deepEqual(outOfRange(schema, 's'), [
      { kind: 'too_short', value: 'x' },
      { kind: 'too_long', value: 'xxxxx' },
    ]);
    assert.deepEqual(outOfRange(schema, 'p'), [{ kind: 'pattern_mismatch', value: '' }]);
    assert.deepEqual(outOfRange(schema, 'list'), [
      { kind: 'too_few_items', value: [] },
      { kind: 'too_many_items', value: ['hello', 'hello', 'hello'] },
    ]);
    assert.deepEqual(outOfRange(schema, 'free'), []);
  });

  test('caps the number of cases', () => {
    const g = generateInputs(
      { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } },
      { max: 5 },
    );
    assert.ok(g.ok && g.cases.length === 5);
  });

  test('wrong values follow the type table and always break the field schema', () => {
    const schema = {
      type: 'object',
      properties: {
        s: { type: 'string' },
        i: { type: 'integer' },
        b: { type: 'boolean' },
        a: { type: 'array' },
        o: { type: 'object' },
        e: { type: 'string', enum: ['x'] },
        u: { type: ['string', 'integer'] },
        any: {},
      },
    };
    assert.deepEqual(wrongValue(schema, 's'), { value: 42 });
    assert.deepEqual(wrongValue(schema, 'i'), { value: 'not-a-number' });
    assert.deepEqual(wrongValue(schema, 'b'), { value: 'not-a-boolean' });
    assert.deepEqual(wrongValue(schema, 'a'), { value: 'not-an-array' });
    assert.deepEqual(wrongValue(schema, 'o'), { value: 'not-an-object' });
    assert.deepEqual(wrongValue(schema, 'e'), { value: '__invalid__' });
    assert.deepEqual(wrongValue(schema, 'u'), { value: true });
    assert.equal(wrongValue(schema, 'any'), undefined);
  });
});
