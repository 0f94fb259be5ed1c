/**
 * The openapi plugin's schema planning, on small operations written inline: portable schemas
 * (3.0 keywords to JSON Schema, OpenAPI-only keywords dropped, allOf merged, cycles cut,
 * types inferred), the input plan (parameters, the body merged or whole) and the output plan.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Operation, OperationObject, PathItemObject } from '../../../plugins/openapi/document.ts';
import { portableSchema } from '../../../plugins/openapi/portable-schema.ts';
import { type InputPlan, planInput } from '../../../plugins/openapi/tool-input.ts';
import { planOutput } from '../../../plugins/openapi/tool-output.ts';

const in30 = { dialect: '3.0', direction: 'input' } as const;
const out30 = { dialect: '3.0', direction: 'output' } as const;

function op(
  operation: OperationObject,
  method: Operation['method'] = 'post',
  pathItem: PathItemObject = {},
): Operation {
  return { method, path: '/things/{id}', operation, pathItem, label: `${method.toUpperCase()} /things/{id}` };
}

function plan(operation: OperationObject, pathItem: PathItemObject = {}): InputPlan {
  const p = planInput(op(operation, 'post', pathItem), '3.0', []);
  assert.ok(!('unsupported' in p), JSON.stringify(p));
  return p;
}

/** Every key at every depth of a JSON value. */
function keysOf(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysOf(v, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysOf(v, out);
    }
  }
  return out;
}

describe('portable schemas', () => {
  test('3.0 nullable becomes a type list, and joins an enum', () => {
    assert.deepEqual(portableSchema({ type: 'string', nullable: true }, in30), { type: ['string', 'null'] });
    assert.deepEqual(portableSchema({ type: 'string', enum: ['a'], nullable: true }, in30), {
      type: ['string', 'null'],
      enum: ['a', null],
    });
    // In 3.1 `nullable` is not a keyword: it is dropped, not interpreted.
    assert.deepEqual(
      portableSchema({ type: 'string', nullable: true }, { dialect: '3.1', direction: 'input' }),
      {
        type: 'string',
      },
    );
  });

  test('3.0 boolean exclusive bounds become numeric ones; example becomes examples', () => {
    assert.deepEqual(
      portableSchema(
        {
          type: 'number',
          minimum: 0,
          exclusiveMinimum: true,
          maximum: 9,
          exclusiveMaximum: false,
          example: 3,
        },
        in30,
      ),
      { type: 'number', exclusiveMinimum: 0, maximum: 9, examples: [3] },
    );
  });

  test('OpenAPI-only and reference keywords are dropped; unknown formats too', () => {
    const schema = portableSchema(
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: 'x',
        $defs: { a: { type: 'string' } },
        $comment: 'c',
        type: 'object',
        discriminator: { propertyName: 'kind' },
        xml: { name: 'thing' },
        externalDocs: { url: 'https://example.com' },
        'x-internal': true,
        properties: {
          phone: { type: 'string', format: 'phone', description: 'A phone.' },
          when: { type: 'string', format: 'date-time', description: 'A time.' },
        },
      },
      in30,
    );
    const keys = keysOf(schema);
    for (const gone of [
      '$schema',
      '$id',
      '$defs',
      '$comment',
      '$ref',
      'discriminator',
      'xml',
      'externalDocs',
      'x-internal',
    ]) {
      assert.ok(!keys.has(gone), gone);
    }
    assert.deepEqual(schema.properties, {
      phone: { type: 'string', description: 'A phone.' },
      when: { type: 'string', format: 'date-time', description: 'A time.' },
    });
    // Output schemas keep no format assertions: an API's dates are rarely exactly RFC 3339.
    assert.equal(
      (portableSchema({ type: 'string', format: 'date-time' }, out30) as { format?: string }).format,
      undefined,
    );
  });

  test('readOnly properties leave inputs, writeOnly ones leave outputs', () => {
    const pet = {
      type: 'object',
      required: ['id', 'name', 'password'],
      properties: {
        id: { type: 'integer', readOnly: true },
        name: { type: 'string' },
        password: { type: 'string', writeOnly: true },
      },
    };
    const input = portableSchema(pet, in30);
    assert.deepEqual(Object.keys(input.properties as object), ['name', 'password']);
    assert.deepEqual(input.required, ['name', 'password']);
    const output = portableSchema(pet, out30);
    assert.deepEqual(Object.keys(output.properties as object), ['id', 'name']);
    assert.deepEqual(output.required, ['id', 'name']);
  });

  test('an allOf of plain objects is merged; other allOfs stay', () => {
    const base = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
    assert.deepEqual(
      portableSchema(
        {
          description: 'A pet.',
          allOf: [base, { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }],
        },
        out30,
      ),
      {
        description: 'A pet.',
        type: 'object',
        properties: { name: { type: 'string' }, id: { type: 'integer' } },
        required: ['name', 'id'],
      },
    );
    const kept = portableSchema({ allOf: [base, { not: { type: 'null' } }] }, out30);
    assert.ok(Array.isArray(kept.allOf));
  });

  test('a cycle is cut after one level, typed and described', () => {
    const node: Record<string, unknown> = { type: 'object', description: 'A tree node.', properties: {} };
    (node.properties as Record<string, unknown>).child = node;
    const schema = portableSchema(node, out30);
    assert.deepEqual((schema.properties as Record<string, unknown>).child, {
      type: 'object',
      description: 'A tree node. (recursive: not expanded further)',
    });
    assert.doesNotThrow(() => JSON.stringify(schema));
  });

  test('a missing type is inferred when the schema implies one', () => {
    assert.equal(portableSchema({ properties: { a: {} } }, in30).type, 'object');
    assert.equal(portableSchema({ items: { type: 'string' } }, in30).type, 'array');
    assert.equal(portableSchema({ enum: ['a', 'b'] }, in30).type, 'string');
    assert.deepEqual(portableSchema({ enum: [1, 2.5] }, in30).type, 'number');
    assert.deepEqual(portableSchema({ enum: ['a', 1] }, in30).type, ['string', 'integer']);
    assert.equal(portableSchema({ const: true }, in30).type, 'boolean');
    assert.equal(portableSchema({ maxLength: 3 }, in30).type, 'string');
    assert.equal(portableSchema({ anyOf: [{ type: 'string' }, { type: 'integer' }] }, in30).type, undefined);
    assert.deepEqual(portableSchema({}, in30), {});
  });
});

describe('input plans', () => {
  test('path, query, header and cookie parameters are properties; path ones are required', () => {
    const p = plan({
      parameters: [
        { name: 'id', in: 'path', schema: { type: 'integer' }, description: 'The id.' },
        {
          name: 'q',
          in: 'query',
          schema: { type: 'string', description: 'schema text' },
          description: 'Search text.',
        },
        { name: 'X-Trace', in: 'header', required: true, schema: { type: 'string' } },
        { name: 'session', in: 'cookie', schema: { type: 'string' }, deprecated: true },
        // OpenAPI 3 §Parameter Object: these three header parameters are ignored.
        { name: 'Accept', in: 'header', schema: { type: 'string' } },
        { name: 'content-type', in: 'header', schema: { type: 'string' } },
        { name: 'Authorization', in: 'header', schema: { type: 'string' } },
      ],
    });
    assert.deepEqual(p.schema, {
      type: 'object',
      properties: {
        id: { type: 'integer', description: 'The id.' },
        q: { type: 'string', description: 'Search text.' },
        'X-Trace': { type: 'string' },
        session: { type: 'string', deprecated: true },
      },
      required: ['id', 'X-Trace'],
      additionalProperties: false,
    });
  });

  test('operation parameters override path-level ones; clashing names get their location', () => {
    const p = plan(
      {
        parameters: [
          { name: 'id', in: 'query', schema: { type: 'string' } },
          { name: 'v', in: 'query', schema: { type: 'integer' } },
        ],
      },
      {
        parameters: [
          { name: 'id', in: 'path', schema: { type: 'integer' } },
          { name: 'v', in: 'query', schema: { type: 'string' } },
        ],
      },
    );
    assert.deepEqual(
      p.params.map((b) => [b.arg, b.param.in]),
      [
        ['id', 'path'],
        ['v', 'query'],
        ['id_query', 'query'],
      ],
    );
    assert.deepEqual((p.schema.properties as Record<string, unknown>).v, { type: 'integer' });
  });

  test('a parameter carrying an API key the settings supply is not asked for', () => {
    const operation = { parameters: [{ name: 'api_key', in: 'query' as const, schema: { type: 'string' } }] };
    const p = planInput(op(operation), '3.0', [{ in: 'query', name: 'API_KEY' }]);
    assert.ok(!('unsupported' in p));
    assert.deepEqual(p.schema.properties, {});
  });

  test('an object body with no clashing names is merged into the top level', () => {
    const p = plan({
      parameters: [{ name: 'id', in: 'path', schema: { type: 'integer' } }],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['name'],
              properties: { name: { type: 'string' }, tag: { type: 'string' } },
            },
          },
        },
      },
    });
    assert.deepEqual(Object.keys(p.schema.properties as object), ['id', 'name', 'tag']);
    assert.deepEqual(p.schema.required, ['id', 'name']);
    // The body allows more properties, so extra arguments go to it.
    assert.equal(p.schema.additionalProperties, undefined);
    assert.equal(p.body?.mode, 'merged');
    assert.equal(p.body?.mediaType, 'application/json');
  });

  test('a body that clashes with a parameter, or is not an object, is one `body` argument', () => {
    const clash = plan({
      parameters: [{ name: 'id', in: 'path', schema: { type: 'integer' } }],
      requestBody: {
        description: 'The thing.',
        content: {
          'application/json': { schema: { type: 'object', properties: { id: { type: 'integer' } } } },
        },
      },
    });
    assert.equal(clash.body?.mode, 'whole');
    assert.equal(clash.body?.arg, 'body');
    assert.deepEqual(
      (clash.schema.properties as Record<string, { description?: string }>).body?.description,
      'The thing.',
    );
    assert.deepEqual(clash.schema.required, ['id']);
    const list = plan({
      requestBody: {
        required: true,
        content: { 'application/vnd.api+json': { schema: { type: 'array', items: { type: 'string' } } } },
      },
    });
    assert.deepEqual(list.schema.required, ['body']);
    assert.equal(list.body?.mediaType, 'application/vnd.api+json');
  });

  test('form bodies are sent; a required body of another type makes the operation unsupported', () => {
    const form = plan({
      requestBody: {
        content: {
          'application/x-www-form-urlencoded': {
            schema: { type: 'object', properties: { a: { type: 'string' } } },
          },
        },
      },
    });
    assert.equal(form.body?.form, true);
    const upload = planInput(
      op({
        requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object' } } } },
      }),
      '3.0',
      [],
    );
    assert.match((upload as { unsupported: string }).unsupported, /multipart\/form-data/);
    const optional = plan({
      requestBody: { content: { 'application/octet-stream': { schema: { type: 'string' } } } },
    });
    assert.equal(optional.body, undefined);
  });
});

describe('output plans', () => {
  const pet = { type: 'object', properties: { id: { type: 'integer' } } };
  const json = (schema: Record<string, unknown>) => ({
    description: 'ok',
    content: { 'application/json': { schema } },
  });

  test('an object response is the output schema; an array is wrapped as result', () => {
    assert.deepEqual(planOutput(op({ responses: { '200': json(pet) } }, 'get'), '3.0'), {
      schema: pet,
      wrapped: false,
    });
    assert.deepEqual(
      planOutput(op({ responses: { '2XX': json({ type: 'array', items: pet }) } }, 'get'), '3.0'),
      {
        schema: {
          type: 'object',
          properties: { result: { type: 'array', items: pet, description: 'ok' } },
          required: ['result'],
        },
        wrapped: true,
      },
    );
  });

  test('no output schema when a success may have no JSON or another shape', () => {
    assert.equal(
      planOutput(op({ responses: { '200': json(pet), '204': { description: 'none' } } }, 'get'), '3.0'),
      undefined,
    );
    assert.equal(
      planOutput(
        op({ responses: { '200': json(pet), '201': json({ type: 'object', properties: {} }) } }, 'get'),
        '3.0',
      ),
      undefined,
    );
    assert.equal(
      planOutput(
        op({ responses: { '200': { description: 'text', content: { 'text/plain': {} } } } }, 'get'),
        '3.0',
      ),
      undefined,
    );
    assert.equal(planOutput(op({ responses: { '404': json(pet) } }, 'get'), '3.0'), undefined);
  });
});
