/**
 * Loading the document: YAML from a file, JSON 3.1 from a file, YAML from the API's own URL
 * (with a relative server), and every way a document refuses start-up with a message that
 * says what to fix: a broken `$ref` (naming the operations that use it), colliding operations
 * (naming both), an unreadable or unparseable file, an invalid document, Swagger 2.0, no
 * document at all, a relative server with nothing to resolve it against. The real CLI exits 2.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openapiPlugin } from '../../../plugins/openapi/index.ts';
import { InternalCode, type PluginDefinition, ToolkitError } from '../../../src/index.ts';
import { TestClient } from '../../../src/testing/client/test-client.ts';
import { spawnCli } from '../../helpers/spawn-server.ts';
import { call, type FakeApi, rejection, startFake } from './helpers.ts';

let api: FakeApi;
let dir: string;
before(async () => {
  api = await startFake();
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-openapi-load-'));
});
after(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

function start(env: Record<string, string>): Promise<TestClient> {
  return TestClient.start({ plugins: [openapiPlugin as PluginDefinition<never>], env });
}

let files = 0;
async function docFile(content: unknown, ext = 'json'): Promise<string> {
  const file = path.join(dir, `doc-${++files}.${ext}`);
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

const ok = { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } };

function doc(paths: Record<string, unknown>, components: Record<string, unknown> = {}, version = '3.0.3') {
  // Components first: the library meets them before the paths that use them.
  return { openapi: version, info: { title: 't', version: '1' }, components, paths };
}

/** The plugin's own refusal: start-up wraps it in one naming the plugin, with it as the cause. */
async function refusal(env: Record<string, string>): Promise<ToolkitError> {
  const err = await rejection(start(env));
  assert.ok(err instanceof ToolkitError, String(err));
  assert.match(err.message, /^Plugin "openapi" failed in register\(\): /);
  const cause = (err as Error & { cause?: unknown }).cause;
  assert.ok(cause instanceof ToolkitError, String(cause));
  return cause;
}

describe('documents that load', () => {
  test('OpenAPI 3.1 JSON: type lists, const and examples kept, an absolute server used as is', async () => {
    const file = await docFile({
      openapi: '3.1.0',
      info: { title: 'Pets 3.1', version: '1' },
      servers: [{ url: `${api.origin}/{base}`, variables: { base: { default: 'v1' } } }],
      paths: {
        '/pets/{petId}': {
          get: {
            operationId: 'showPet',
            parameters: [
              {
                name: 'petId',
                in: 'path',
                required: true,
                description: 'The id.',
                schema: { type: 'integer', examples: [1] },
              },
              { name: 'mode', in: 'query', description: 'Fixed.', schema: { const: 'full' } },
            ],
            responses: {
              '200': {
                description: 'The pet.',
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      properties: {
                        name: { type: 'string', description: 'Name.' },
                        tag: { type: ['string', 'null'], description: 'Tag.' },
                        owner: {
                          $ref: '#/components/schemas/Owner',
                          description: 'Owner, described beside its $ref.',
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
      components: { schemas: { Owner: { type: 'object', properties: { name: { type: 'string' } } } } },
    });
    const client = await start({ MCP_OPENAPI_SPEC: file });
    const [tool] = await client.listTools();
    const input = tool?.inputSchema as { properties: Record<string, unknown> };
    assert.deepEqual(input.properties.petId, { type: 'integer', examples: [1], description: 'The id.' });
    assert.deepEqual(input.properties.mode, { type: 'string', const: 'full', description: 'Fixed.' });
    const output = tool?.outputSchema as {
      properties: Record<string, { type?: unknown; description?: string }>;
    };
    assert.deepEqual(output.properties.tag?.type, ['string', 'null']);
    assert.equal(output.properties.owner?.description, 'Owner, described beside its $ref.');
    api.reset();
    const r = await call(client, 'showPet', { petId: 3 });
    await client.close();
    assert.deepEqual(r.structuredContent, { id: 3, name: 'Kiwi', tag: null, status: 'pending' });
    assert.equal(api.requests[0]?.target, '/v1/pets/3');
  });

  test('from the API itself over HTTP: YAML, the relative server resolved against its URL', async () => {
    api.reset();
    const client = await start({
      MCP_OPENAPI_SPEC: `${api.origin}/openapi.yaml`,
      MCP_OPENAPI_USER_AGENT: 'petstore-agent/2',
    });
    const r = await call(client, 'showPetById', { petId: 1 });
    await client.close();
    assert.equal((r.structuredContent as { name?: string }).name, 'Rex');
    assert.deepEqual(
      api.requests.map((q) => [q.target, q.headers['user-agent']]),
      [
        ['/openapi.yaml', 'petstore-agent/2'],
        // The start-up check's probe of the health operation.
        ['/v1/health', 'petstore-agent/2'],
        ['/v1/pets/1', 'petstore-agent/2'],
      ],
    );
  });
});

describe('documents that refuse to start', () => {
  test('a broken $ref deep in a schema names the operations that reach it', async () => {
    const file = await docFile(
      doc(
        {
          '/x': {
            get: {
              operationId: 'getX',
              responses: {
                '200': {
                  description: 'ok',
                  content: { 'application/json': { schema: { $ref: '#/components/schemas/A' } } },
                },
              },
            },
          },
          '/fine': { get: { operationId: 'fine', responses: ok } },
        },
        {
          schemas: {
            A: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } },
            B: { $ref: '#/components/schemas/Nope' },
          },
        },
      ),
    );
    const err = await refusal({ MCP_OPENAPI_SPEC: file, MCP_OPENAPI_BASE_URL: api.baseUrl });
    assert.equal(err.code, InternalCode.InvalidSetting);
    assert.match(
      err.message,
      /^MCP_OPENAPI_SPEC has a broken \$ref: Missing \$ref pointer "#\/components\/schemas\/Nope"/,
    );
    assert.match(err.message, /used by operation GET \/x \(getX\)$/);
    assert.ok(!err.message.includes('fine'), err.message);
  });

  test('a broken $ref in an operation names that operation', async () => {
    const file = await docFile(
      doc({
        '/y': {
          post: {
            operationId: 'postY',
            parameters: [{ $ref: '#/components/parameters/Gone' }],
            responses: ok,
          },
        },
      }),
    );
    const err = await refusal({ MCP_OPENAPI_SPEC: file, MCP_OPENAPI_BASE_URL: api.baseUrl });
    assert.match(
      err.message,
      /broken \$ref.*#\/components\/parameters\/Gone.*used by operation POST \/y \(postY\)/,
    );
  });

  test('two operations that would be one tool name both', async () => {
    const file = await docFile(
      doc({
        '/pets': { get: { operationId: 'list', responses: ok } },
        '/animals': { get: { operationId: 'list', responses: ok } },
      }),
    );
    const err = await refusal({ MCP_OPENAPI_SPEC: file, MCP_OPENAPI_BASE_URL: api.baseUrl });
    assert.equal(err.code, InternalCode.DuplicateName);
    assert.match(
      err.message,
      /operations GET \/pets \(list\) and GET \/animals \(list\) would both be the tool "list"/,
    );
    // Leaving one out is the way through.
    const client = await start({
      MCP_OPENAPI_SPEC: file,
      MCP_OPENAPI_BASE_URL: api.baseUrl,
      MCP_OPENAPI_EXCLUDE: '/animals',
    });
    assert.deepEqual(
      (await client.listTools()).map((t) => t.name),
      ['list'],
    );
    await client.close();
  });

  test('an unreadable file, bad YAML, an invalid document, Swagger 2.0', async () => {
    const base = { MCP_OPENAPI_BASE_URL: api.baseUrl };
    const missing = await refusal({ ...base, MCP_OPENAPI_SPEC: path.join(dir, 'nope.yaml') });
    assert.equal(missing.code, InternalCode.InvalidSetting);
    assert.match(missing.message, /^MCP_OPENAPI_SPEC could not be read: /);
    const yaml = await refusal({
      ...base,
      MCP_OPENAPI_SPEC: await docFile('openapi: 3.0.3\ninfo: [unclosed\n', 'yaml'),
    });
    assert.match(yaml.message, /^MCP_OPENAPI_SPEC is not valid JSON or YAML: /);
    const invalid = await refusal({
      ...base,
      MCP_OPENAPI_SPEC: await docFile(doc({ '/z': { get: { operationId: 'z', responses: 'none' } } })),
    });
    assert.match(
      invalid.message,
      /^MCP_OPENAPI_SPEC is not a valid OpenAPI 3\.0 or 3\.1 document: .*#\/paths\/~1z\/get\/responses must be object/s,
    );
    const swagger = await refusal({
      ...base,
      MCP_OPENAPI_SPEC: await docFile({ swagger: '2.0', info: { title: 't', version: '1' }, paths: {} }),
    });
    assert.match(swagger.message, /Swagger 2\.0 document: the openapi plugin reads OpenAPI 3\.0 and 3\.1/);
  });

  test('no MCP_OPENAPI_SPEC, or a relative server read from a file without MCP_OPENAPI_BASE_URL', async () => {
    assert.match((await refusal({})).message, /^MCP_OPENAPI_SPEC is required by the openapi plugin/);
    const file = await docFile({
      ...doc({ '/a': { get: { operationId: 'a', responses: ok } } }),
      servers: [{ url: '/v1' }],
    });
    const err = await refusal({ MCP_OPENAPI_SPEC: file });
    assert.equal(err.code, InternalCode.InvalidSetting);
    assert.match(
      err.message,
      /^MCP_OPENAPI_BASE_URL is required: the document's server URL "\/v1" is not an absolute http\(s\) URL and the document was read from a file/,
    );
  });

  test('the CLI refuses to start (exit 2) and names the operation', async () => {
    const file = await docFile(
      doc({
        '/y': {
          get: { operationId: 'getY', parameters: [{ $ref: '#/components/parameters/Gone' }], responses: ok },
        },
      }),
    );
    const proc = spawnCli(['run', '--transport', 'stdio'], {
      MCP_PLUGINS: 'openapi',
      MCP_OPENAPI_SPEC: file,
      MCP_OPENAPI_BASE_URL: api.baseUrl,
    });
    const timer = setTimeout(() => void proc.stop(), 30_000);
    const code = await proc.exited;
    clearTimeout(timer);
    assert.equal(code, 2, proc.stderr());
    // stderr is not a terminal here, so the failure is a JSON log line.
    const line = proc
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; code?: string })
      .find((l) => l.msg.startsWith('cannot start:'));
    assert.ok(line, proc.stderr());
    assert.match(
      line.msg,
      /^cannot start:\nPlugin "openapi" failed in register\(\): MCP_OPENAPI_SPEC has a broken \$ref: .*used by operation GET \/y \(getY\)/,
    );
  });
});
