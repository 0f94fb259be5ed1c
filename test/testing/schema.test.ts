/**
 * The schema machinery behind the generated tests: dialects (draft-07, 2020-12), formats, the
 * field walk at every depth, the value tables, and wrong-typed values.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileSchema, dialectOf, validateValue } from '../../src/testing/json-schema.ts';
import { invalidTypes, missingDescriptions, walkProperties } from '../../src/testing/schema-fields.ts';
import {
  FORMAT_VALUES,
  generateInputs,
  INTEGER_VALUES,
  STRING_VALUES,
  wrongValue,
} from '../../src/testing/schema-values.ts';

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

  test('a schema no table value satisfies yields a reason, not an invalid call', () => {
    const g = generateInputs({
      type: 'object',
      properties: { code: { type: 'string', pattern: '^[A-Z]{3}$' } },
      required: ['code'],
    });
    assert.equal(g.ok, false);
    assert.match(g.ok ? '' : g.problem, /"code"/);
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
