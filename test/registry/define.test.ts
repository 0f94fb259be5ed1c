import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { InternalCode, ToolkitError } from '../../src/base/errors.ts';
import { definePrompt, defineResource, defineResourceTemplate, defineTool } from '../../src/index.ts';
import { Registry } from '../../src/registry/registry.ts';
import { compileJsonSchema, EMPTY_OBJECT_SCHEMA } from '../../src/registry/schema.ts';
import { compileTemplate } from '../../src/registry/uri-template.ts';

const refused = (code: string, pattern: RegExp) => (err: unknown) => {
  assert.ok(err instanceof ToolkitError);
  assert.equal(err.code, code);
  assert.match(err.message, pattern);
  return true;
};
const noop = async () => 'ok';

describe('definitions are checked at registration', () => {
  for (const name of ['', 'has space', 'x'.repeat(65), 'bad!', 'ümlaut']) {
    test(`tool name ${JSON.stringify(name)} is refused`, () => {
      assert.throws(
        () => defineTool({ name, description: 'd' }, noop),
        refused(InternalCode.InvalidDefinition, /name/),
      );
    });
  }
  test('names with the allowed punctuation are fine', () => {
    assert.equal(defineTool({ name: 'a.b/c-d_e', description: 'd' }, noop).name, 'a.b/c-d_e');
    assert.equal(defineTool({ name: 'x'.repeat(64), description: 'd' }, noop).name.length, 64);
  });
  test('an empty description is refused', () => {
    assert.throws(
      () => defineTool({ name: 't', description: '  ' }, noop),
      refused(InternalCode.InvalidDefinition, /description/),
    );
    assert.throws(
      () => definePrompt({ name: 'p', description: '' }, noop),
      refused(InternalCode.InvalidDefinition, /description/),
    );
  });
  test('a non-object input or output schema is refused', () => {
    assert.throws(
      () => defineTool({ name: 't', description: 'd', input: z.string() as never }, noop),
      refused(InternalCode.InvalidDefinition, /object schema/),
    );
    assert.throws(
      () => defineTool({ name: 't', description: 'd', input: { type: 'array' } }, noop),
      refused(InternalCode.InvalidDefinition, /object schema/),
    );
    assert.throws(
      () => defineTool({ name: 't', description: 'd', output: z.array(z.string()) }, async () => ['x']),
      refused(InternalCode.InvalidDefinition, /output schema/),
    );
  });
  test('duplicate names and URIs are refused', () => {
    const registry = new Registry().add(defineTool({ name: 't', description: 'd' }, noop));
    assert.throws(
      () => registry.add(defineTool({ name: 't', description: 'again' }, noop)),
      refused(InternalCode.DuplicateName, /"t"/),
    );
    registry.add(defineResource({ uri: 'x://a', name: 'a' }, noop));
    assert.throws(
      () => registry.add(defineResource({ uri: 'x://a', name: 'b' }, noop)),
      refused(InternalCode.DuplicateName, /x:\/\/a/),
    );
  });
  test('a tool without input gets the empty object schema', () => {
    assert.deepEqual(defineTool({ name: 't', description: 'd' }, noop).listing.inputSchema, {
      type: 'object',
      properties: {},
    });
  });
  test('a tool without input validates as Ajv does for its schema, without compiling one (workerd refuses new Function)', () => {
    const own = defineTool({ name: 't', description: 'd' }, noop).input;
    const ajv = compileJsonSchema<unknown>(EMPTY_OBJECT_SCHEMA);
    for (const value of [{}, { extra: 1 }, [], null, 'a', 3, undefined]) {
      assert.deepEqual(own.validate(value), ajv.validate(value), JSON.stringify(value));
    }
    assert.deepEqual(own.validate([]), { ok: false, issues: ['(root): must be object'] });
  });
  test('a server whose tools are zod or without input is defined where code generation is refused', () => {
    // workerd refuses `new Function`, as node does with this flag; Ajv compiles with it.
    const index = new URL('../../src/index.ts', import.meta.url).href;
    const script = `
      import { defineTool } from ${JSON.stringify(index)};
      import { z } from 'zod';
      const bare = defineTool({ name: 'bare', description: 'd' }, async () => 'ok');
      const typed = defineTool({ name: 'typed', description: 'd', input: z.object({ n: z.number() }) }, async () => 'ok');
      console.log(JSON.stringify([bare.input.validate({}).ok, bare.input.validate([]).ok, typed.input.validate({ n: 1 }).ok]));
    `;
    const run = spawnSync(
      process.execPath,
      ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script],
      { encoding: 'utf8', timeout: 120_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), '[true,false,true]');
  });
  test('zod schemas are converted once, flat and without $schema; examples are published', () => {
    const def = defineTool(
      {
        name: 't',
        description: 'd',
        input: z.object({ n: z.number().int().min(1).describe('count') }),
        examples: [{ n: 2 }],
      },
      noop,
    );
    assert.deepEqual(def.listing.inputSchema, {
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1, maximum: 9007199254740991, description: 'count' } },
      required: ['n'],
      examples: [{ n: 2 }],
    });
  });
  test('x-mcp-header annotations are found on raw schemas', () => {
    const def = defineTool(
      {
        name: 't',
        description: 'd',
        input: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
      },
      noop,
    );
    assert.deepEqual(def.headerParams, [{ property: 'region', header: 'Region' }]);
  });
  test('a prompt argument declared twice is refused; template completion must name a variable', () => {
    assert.throws(
      () => definePrompt({ name: 'p', description: 'd', arguments: [{ name: 'a' }, { name: 'a' }] }, noop),
      refused(InternalCode.InvalidDefinition, /twice/),
    );
    assert.throws(
      () =>
        defineResourceTemplate(
          { uriTemplate: 'x://{id}', name: 'x', complete: { nope: async () => [] } },
          noop,
        ),
      refused(InternalCode.InvalidDefinition, /unknown variable/),
    );
  });
});

describe('URI templates', () => {
  test('{var} matches one segment, decoded; {+var} spans slashes', () => {
    const t = compileTemplate('file:///{+path}');
    assert.deepEqual(t.match('file:///a/b%20c.txt'), { path: 'a/b c.txt' });
    const u = compileTemplate('x://items/{id}/data');
    assert.deepEqual(u.match('x://items/a%2Fb/data'), { id: 'a/b' });
    assert.equal(u.match('x://items/a/b/data'), undefined);
    assert.equal(u.match('x://items//data'), undefined);
    assert.equal(u.match('x://items/%E0%A4%A/data'), undefined);
  });
  test('unsupported expressions are refused', () => {
    assert.throws(() => compileTemplate('x://{?q}'), refused(InternalCode.InvalidDefinition, /supported/));
  });
});
