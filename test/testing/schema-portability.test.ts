/**
 * Schema portability: each construct that major clients drop or reject is found where it is,
 * with the clients named; plain schemas give nothing; and the schemas our bundled plugins
 * publish (generated from zod) are clean of every construct.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { BUNDLED_PLUGINS } from '../../scripts/bundled-plugins.ts';
import type { JsonObject } from '../../src/base/jsonrpc.ts';
import { TestClient } from '../../src/testing/client/test-client.ts';
import {
  PORTABILITY_CLIENTS,
  portabilityFindings,
  toolPortability,
} from '../../src/testing/schema/portability.ts';
import { REPO_ROOT } from './helpers/fixtures.ts';

const found = (schema: unknown) => portabilityFindings(schema).map((f) => `${f.rule} ${f.path}: ${f.detail}`);

describe('portability findings', () => {
  test('a flat schema with one type per property and strict formats has none', () => {
    assert.deepEqual(
      found({
        type: 'object',
        properties: {
          when: { type: 'string', format: 'date-time' },
          mode: { type: 'string', enum: ['a', 'b'] },
          list: { type: 'array', items: { type: 'integer', minimum: 0 } },
          inner: { type: 'object', properties: { x: { type: 'number' } }, additionalProperties: false },
        },
        required: ['when'],
        additionalProperties: false,
      }),
      [],
    );
  });

  test('each construct is found at its path, nested properties and items included', () => {
    assert.deepEqual(
      found({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { point: { type: 'object', properties: { x: { type: 'number' } } } },
        properties: {
          maybe: { type: ['string', 'null'] },
          either: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
          where: { $ref: '#/$defs/point' },
          colour: { enum: ['red', 'blue'] },
          anything: {},
          link: { type: 'string', format: 'uri' },
          phone: { type: 'string', format: 'phone' },
          open: true,
          list: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
          deep: { type: 'object', properties: { inner: { const: 1 } } },
        },
      }),
      [
        'dollar-schema (root): $schema "https://json-schema.org/draft/2020-12/schema"',
        'ref (root): $defs point',
        'type-union properties.maybe: type ["string","null"]',
        'union properties.either: oneOf',
        'ref properties.where: $ref "#/$defs/point"',
        'untyped-property properties.colour: enum without type',
        'untyped-property properties.anything: no type',
        'format properties.link: format "uri"',
        'format properties.phone: format "phone" (not a JSON Schema format: validators ignore it)',
        'boolean-schema properties.open: the schema is the bare true',
        'union properties.list.items: anyOf',
        'untyped-property properties.deep.properties.inner: const without type',
      ],
    );
  });

  test('a union at the root counts (allOf too); branches of a property union are not properties', () => {
    assert.deepEqual(found({ type: 'object', anyOf: [{ required: ['a'] }, { required: ['b'] }] }), [
      'union (root): anyOf',
    ]);
    assert.deepEqual(found({ type: 'object', allOf: [{ required: ['a'] }] }), ['union (root): allOf']);
    // additionalProperties: false and items: false are constraints, not property schemas.
    assert.deepEqual(
      found({
        type: 'object',
        additionalProperties: false,
        properties: { t: { type: 'array', items: false } },
      }),
      [],
    );
  });

  test('a tool is judged on both its schemas; every rule names the clients it affects', () => {
    const tool = {
      name: 't',
      inputSchema: { type: 'object', properties: { a: { type: ['string', 'null'] } } },
      outputSchema: { type: 'object', properties: { b: true } },
    };
    assert.deepEqual(
      toolPortability(tool).map((f) => `${f.schema} ${f.rule}`),
      ['inputSchema type-union', 'outputSchema boolean-schema'],
    );
    assert.match(PORTABILITY_CLIENTS.union, /Cursor/);
    assert.match(PORTABILITY_CLIENTS['dollar-schema'], /no client known to refuse it/);
    assert.match(PORTABILITY_CLIENTS['untyped-property'], /Gemini/);
  });
});

/**
 * Schemas published as given rather than generated: the official conformance suite's 2020-12 tool,
 * and the openapi plugin's tools, whose schemas come from the API document (the petstore is
 * OpenAPI 3.1, where a nullable field is a type list).
 */
const VERBATIM = new Set(['json_schema_2020_12_tool']);
const FROM_DOCUMENT = new Set(['openapi']);
const PETSTORE = path.join(REPO_ROOT, 'test/plugins/openapi/fixtures/petstore.yaml');
/** The proxy serves another server's tools with that server's schemas: here the memory server's. */
const MIRRORED = new Set(['proxy']);
const MEMORY = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

describe('the bundled plugins publish portable schemas', () => {
  // The bundled ones: a user's own plugin beside them (with a required setting this test
  // cannot know) is checked with `mcp-toolkit check` on the user's server.
  test('every tool of every bundled plugin is clean', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mcp-kit-portability-'));
    const names = [...BUNDLED_PLUGINS];
    assert.ok(names.includes('filesystem') && names.includes('conformance'), names.join());
    let checked = 0;
    const verbatim: string[] = [];
    const fromDocument: string[] = [];
    let mirrored = 0;
    try {
      for (const name of names) {
        const mod = (await import(path.join(REPO_ROOT, 'plugins', name, 'index.ts'))) as { default: never };
        const client = await TestClient.start({
          plugins: [mod.default],
          env: {
            MCP_FILESYSTEM_ROOT: path.join(dir, name),
            MCP_OPENAPI_SPEC: PETSTORE,
            MCP_OPENAPI_BASE_URL: 'http://127.0.0.1:9/api',
            MCP_PROXY_COMMAND: process.execPath,
            MCP_PROXY_ARGS: JSON.stringify([MEMORY]),
            MCP_PROXY_ENV: JSON.stringify({ MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') }),
          },
        });
        try {
          const { tools } = (await client.request('tools/list', {})) as { tools: JsonObject[] };
          for (const tool of tools) {
            const findings = toolPortability(tool);
            if (VERBATIM.has(tool.name as string)) {
              verbatim.push(...findings.map((f) => f.rule));
              continue;
            }
            if (MIRRORED.has(name)) {
              mirrored++;
              continue;
            }
            if (FROM_DOCUMENT.has(name)) {
              fromDocument.push(...findings.map((f) => f.rule));
              continue;
            }
            checked++;
            assert.deepEqual(findings, [], `${name}: ${String(tool.name)}`);
          }
        } finally {
          await client.close();
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    assert.ok(checked > 20, `only ${checked} tools checked`);
    assert.ok(mirrored > 0, 'the proxy served the upstream memory server’s tools');
    // The check is not vacuous: the verbatim 2020-12 tool is caught.
    assert.deepEqual([...new Set(verbatim)].sort(), ['dollar-schema', 'ref', 'union', 'untyped-property']);
    // The openapi plugin keeps the document's type lists (OpenAPI 3.1 nullable: its null can
    // mean something to the API), flagged as on any server; its input formats that clients
    // refuse (int64) went into the descriptions.
    assert.deepEqual([...new Set(fromDocument)].sort(), ['type-union']);
  });
});
