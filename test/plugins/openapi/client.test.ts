/**
 * The openapi plugin end to end through the in-process TestClient, on the petstore document
 * and the loopback fake of its API: what `tools/list` shows, and every mapping of a call
 * (parameters, body, credentials, 2xx, 4xx, 5xx with and without retry, network failures,
 * timeouts, cancellation, size cap, binary answers).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { JsonObject } from '../../../src/index.ts';
import type { TestClient } from '../../../src/testing/client/test-client.ts';
import { invalidTypes, missingDescriptions } from '../../../src/testing/schema/fields.ts';
import { PNG } from './fake-api.ts';
import { API_KEY, BEARER_TOKEN, call, type FakeApi, startFake, startPlugin, textOf } from './helpers.ts';

let api: FakeApi;
before(async () => {
  api = await startFake();
});
after(() => api.close());

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

describe('tools/list from the petstore document', () => {
  let client: TestClient;
  let tools: Map<string, JsonObject>;
  before(async () => {
    client = await startPlugin(api, { MCP_OPENAPI_API_KEY: API_KEY, MCP_OPENAPI_BEARER_TOKEN: BEARER_TOKEN });
    tools = new Map((await client.listTools()).map((t) => [String(t.name), t]));
  });
  after(() => client.close());

  test('one tool per operation, named by operationId', () => {
    assert.deepEqual(
      [...tools.keys()],
      [
        'listPets',
        'createPet',
        'showPetById',
        'replacePet',
        'deletePet',
        'petPhoto',
        'getFile',
        'getInventory',
        'adminStats',
        'slow',
        'health',
      ],
    );
  });

  test('titles and descriptions from summary and description', () => {
    const list = tools.get('listPets');
    assert.equal(list?.title, 'List pets');
    assert.equal(list?.description, 'List pets\n\nLists pets, optionally filtered by tags and status.');
    assert.equal(tools.get('createPet')?.description, 'Add a pet');
  });

  test('annotations from the method', () => {
    const hints = (name: string) => tools.get(name)?.annotations as Record<string, unknown>;
    assert.deepEqual(hints('listPets'), { title: 'List pets', readOnlyHint: true, openWorldHint: true });
    assert.equal(hints('deletePet').destructiveHint, true);
    assert.equal(hints('deletePet').readOnlyHint, false);
    assert.equal(hints('replacePet').idempotentHint, true);
    assert.equal(hints('createPet').readOnlyHint, false);
    assert.equal(hints('createPet').destructiveHint, undefined);
  });

  test('every tool declares the failures its calls can have', () => {
    const meta = (tools.get('showPetById')?._meta ?? {}) as Record<
      string,
      Record<string, { retryable: boolean }>
    >;
    const declared = meta['io.github.mcp-toolkit/errors'];
    assert.deepEqual(Object.keys(declared ?? {}).sort(), [
      'bad_request',
      'conflict',
      'forbidden',
      'not_found',
      'rate_limited',
      'refused',
      'response_too_large',
      'timeout',
      'unauthorized',
      'unexpected_response',
      'unreachable',
      'upstream_error',
    ]);
    assert.equal(declared?.upstream_error?.retryable, true);
    assert.equal(declared?.not_found?.retryable, false);
  });

  test('schemas are portable: no $ref, $defs or $schema; every property typed and described', () => {
    for (const [name, tool] of tools) {
      for (const key of ['inputSchema', 'outputSchema'] as const) {
        const schema = tool[key] as JsonObject | undefined;
        if (schema === undefined) continue;
        const keys = keysOf(schema);
        for (const banned of ['$ref', '$defs', 'definitions', '$schema', 'nullable', 'discriminator']) {
          assert.ok(!keys.has(banned), `${name} ${key} has ${banned}`);
        }
        assert.equal(schema.type, 'object', `${name} ${key}`);
        assert.deepEqual(invalidTypes(schema), [], `${name} ${key}`);
        assert.deepEqual(missingDescriptions(schema), [], `${name} ${key}`);
      }
    }
  });

  test('parameters and the JSON body are merged; the key header is not an argument', () => {
    const list = tools.get('listPets')?.inputSchema as JsonObject;
    assert.deepEqual(Object.keys(list.properties as object), [
      'limit',
      'tags',
      'status',
      'fields',
      'X-Request-Id',
    ]);
    assert.equal(list.additionalProperties, false);
    const create = tools.get('createPet')?.inputSchema as JsonObject;
    assert.deepEqual(Object.keys(create.properties as object), [
      'name',
      'tag',
      'status',
      'owner',
      'category',
    ]);
    assert.deepEqual(create.required, ['name']);
    // The readOnly id of Pet is not asked of the model; the path parameter is.
    const replace = tools.get('replacePet')?.inputSchema as JsonObject;
    assert.deepEqual(Object.keys(replace.properties as object), [
      'petId',
      'name',
      'tag',
      'status',
      'owner',
      'category',
    ]);
    assert.deepEqual(replace.required, ['petId', 'name']);
  });

  test('the enum and the $ref chain are resolved in place', () => {
    const props = (tools.get('createPet')?.inputSchema as JsonObject | undefined)?.properties as Record<
      string,
      JsonObject
    >;
    assert.deepEqual(props.status?.enum, ['available', 'pending', 'sold']);
    const owner = props.owner as { properties: { address: { properties: { zip: JsonObject } } } };
    assert.deepEqual(owner.properties.address.properties.zip, {
      type: 'string',
      description: 'The postal code.',
      pattern: '^[0-9]{5}$',
    });
    const category = props.category as { properties: { parent: JsonObject } };
    assert.match(String(category.properties.parent.description), /recursive/);
  });

  test('output schemas from 2xx JSON responses; arrays wrapped; none for non-JSON answers', () => {
    const show = tools.get('showPetById')?.outputSchema as JsonObject;
    assert.deepEqual((show.required as string[]).sort(), ['id', 'name']);
    const list = tools.get('listPets')?.outputSchema as JsonObject;
    assert.deepEqual(list.required, ['result']);
    assert.equal((list.properties as { result: JsonObject }).result.type, 'array');
    for (const name of ['deletePet', 'petPhoto', 'getFile', 'slow']) {
      assert.equal(tools.get(name)?.outputSchema, undefined, name);
    }
  });
});

describe('calls', () => {
  let client: TestClient;
  before(async () => {
    client = await startPlugin(api, { MCP_OPENAPI_API_KEY: API_KEY, MCP_OPENAPI_BEARER_TOKEN: BEARER_TOKEN });
  });
  after(() => client.close());
  beforeEach(() => api.reset());

  test('query arrays, a comma-joined array, a header, structured content', async () => {
    const r = await call(client, 'listPets', {
      tags: ['dog', 'cat'],
      fields: ['name', 'tag'],
      limit: 5,
      'X-Request-Id': 'req-1',
    });
    assert.notEqual(r.isError, true, textOf(r));
    const pets = (r.structuredContent?.result ?? []) as { name: string }[];
    assert.deepEqual(
      pets.map((p) => p.name),
      ['Rex', 'Tom'],
    );
    assert.deepEqual(JSON.parse(textOf(r)), pets);
    const [req] = api.requests;
    assert.equal(req?.method, 'GET');
    assert.equal(req?.target, '/v1/pets?limit=5&tags=dog&tags=cat&fields=name,tag');
    assert.equal(req?.headers['x-request-id'], 'req-1');
    assert.equal(req?.headers['user-agent'], 'mcp-toolkit-openapi');
    assert.match(String(req?.headers.accept), /application\/json/);
    // listPets needs no credentials: none are sent.
    assert.equal(req?.headers['x-api-key'], undefined);
    assert.equal(req?.headers.authorization, undefined);
  });

  test('an enum value outside the list is refused before any request', async () => {
    const r = await call(client, 'listPets', { status: 'flying' });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /status/);
    assert.equal(api.requests.length, 0);
  });

  test('a JSON body with the API key; the answer is structured', async () => {
    const r = await call(client, 'createPet', { name: 'Bo', status: 'pending', owner: { name: 'Kim' } });
    assert.notEqual(r.isError, true, textOf(r));
    assert.deepEqual(r.structuredContent, { name: 'Bo', status: 'pending', owner: { name: 'Kim' }, id: 100 });
    const [req] = api.requests;
    assert.equal(req?.method, 'POST');
    assert.equal(req?.headers['content-type'], 'application/json');
    assert.equal(req?.headers['x-api-key'], API_KEY);
    assert.deepEqual(JSON.parse(String(req?.body)), {
      name: 'Bo',
      status: 'pending',
      owner: { name: 'Kim' },
    });
  });

  test('the path is encoded, so an argument stays one segment', async () => {
    const r = await call(client, 'getFile', { name: '../a/b c?.txt' });
    assert.equal(textOf(r), '/v1/files/..%2Fa%2Fb%20c%3F.txt');
  });

  test('a dot segment is refused before anything is sent; encoded and embedded dots stay data', async () => {
    for (const name of ['..', '.']) {
      api.reset();
      const r = await call(client, 'getFile', { name });
      assert.equal(r.isError, true, `${name}: ${textOf(r)}`);
      assert.match(textOf(r), /would change the path the call goes to/);
      assert.deepEqual(
        api.requests.map((q) => q.target),
        [],
        `${name}: the upstream received nothing`,
      );
    }
    for (const [name, target] of [
      ['..a', '/v1/files/..a'],
      ['a..', '/v1/files/a..'],
      ['...', '/v1/files/...'],
      // A client's own percent signs are data too: they cannot spell a dot segment.
      ['%2e%2e', '/v1/files/%252e%252e'],
      ['.%2E', '/v1/files/.%252E'],
    ] as const) {
      api.reset();
      const r = await call(client, 'getFile', { name });
      assert.notEqual(r.isError, true, `${name}: ${textOf(r)}`);
      assert.deepEqual(
        api.requests.map((q) => q.target),
        [target],
        `${name} arrives as one segment under the base path`,
      );
    }
  });

  test('404 is an isError result with the API message', async () => {
    const r = await call(client, 'showPetById', { petId: 999 });
    assert.equal(r.isError, true);
    assert.equal(
      textOf(r),
      'not_found: GET /pets/{petId} (showPetById) was refused: HTTP 404 Not Found: Pet 999 not found. Retrying the same call will not help. Check the identifiers in the arguments.',
    );
    assert.equal(r.structuredContent, undefined);
  });

  test('503 then 200 on an idempotent GET: retried, and the result is the 200', async () => {
    const r = await call(client, 'getInventory');
    assert.notEqual(r.isError, true, textOf(r));
    assert.deepEqual(r.structuredContent, { available: 1, sold: 1, pending: 1 });
    assert.equal(api.requests.filter((q) => q.target === '/v1/store/inventory').length, 2);
  });

  test('a POST is never retried: 503 is a retryable isError result', async () => {
    api.failNext('/pets', 503);
    const r = await call(client, 'createPet', { name: 'Bo' });
    assert.equal(r.isError, true);
    assert.match(
      textOf(r),
      /^upstream_error: POST \/pets \(createPet\) failed on the API's side: HTTP 503 Service Unavailable: injected 503\. Retrying later may succeed\./,
    );
    assert.equal(api.requests.length, 1);
  });

  test('retries are bounded (MCP_OPENAPI_RETRIES) and said in the result', async () => {
    api.failNext('/pets/1', 502, 10);
    const r = await call(client, 'showPetById', { petId: 1 });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /\(after 3 attempts\): HTTP 502 Bad Gateway.*Retrying later may succeed/);
    assert.equal(api.requests.length, 3);
  });

  test('no retry when the API asks for a long wait; the wait is passed on', async () => {
    api.failNext('/pets/1', 503, 5, { 'retry-after': '120' });
    const r = await call(client, 'showPetById', { petId: 1 });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /the API asks to wait 120 s/);
    assert.equal(api.requests.length, 1);
  });

  test('other 4xx are not retried: 409 with the API message', async () => {
    api.failNext('/pets/1', 409, 3);
    const r = await call(client, 'replacePet', { petId: 1, name: 'Rex' });
    assert.equal(r.isError, true);
    assert.match(
      textOf(r),
      /^conflict: .*HTTP 409 Conflict: injected 409\. Retrying the same call will not help\. The request conflicts/,
    );
    assert.equal(api.requests.length, 1);
  });

  test('a PUT and a DELETE carry the key; 204 is a plain success', async () => {
    const put = await call(client, 'replacePet', { petId: 3, name: 'Kiwi', tag: null });
    assert.deepEqual(put.structuredContent, { name: 'Kiwi', tag: null, id: 3 });
    const del = await call(client, 'deletePet', { petId: 3 });
    assert.notEqual(del.isError, true);
    assert.equal(textOf(del), 'HTTP 204 No Content');
    assert.deepEqual(
      api.requests.map((q) => [q.method, q.target, q.headers['x-api-key']]),
      [
        ['PUT', '/v1/pets/3', API_KEY],
        ['DELETE', '/v1/pets/3', API_KEY],
      ],
    );
  });

  test('a bearer-token operation gets Authorization and nothing else', async () => {
    const r = await call(client, 'adminStats');
    assert.notEqual(r.isError, true, textOf(r));
    assert.equal(typeof r.structuredContent?.requests, 'number');
    assert.equal(api.requests[0]?.headers.authorization, `Bearer ${BEARER_TOKEN}`);
    assert.equal(api.requests[0]?.headers['x-api-key'], undefined);
  });

  test('an image answer is an image block', async () => {
    const r = await call(client, 'petPhoto', { petId: 1 });
    assert.deepEqual(r.content, [{ type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' }]);
  });

  test('cancelling the call aborts the HTTP request', async () => {
    const reply = client.send({
      jsonrpc: '2.0',
      id: 'cancel-me',
      method: 'tools/call',
      params: { name: 'slow', arguments: { ms: 20_000 } },
    });
    for (let i = 0; i < 100 && api.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(api.requests.length, 1, 'the request reached the API');
    await client.notify('notifications/cancelled', { requestId: 'cancel-me', reason: 'test' });
    for (let i = 0; i < 100 && api.abandoned() === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(api.abandoned(), 1, 'the API saw the connection close');
    const answer = await reply;
    // A cancelled request gets no response (or an error, should it race the cancellation).
    assert.ok(
      answer === undefined ||
        'error' in answer ||
        (answer as { result?: { isError?: boolean } }).result?.isError,
    );
  });
});

describe('calls with other settings', () => {
  beforeEach(() => api.reset());

  test('without the key, the writes that need it are left out; the others are served', async () => {
    const client = await startPlugin(api);
    const names = (await client.listTools()).map((t) => t.name);
    await client.close();
    for (const leftOut of ['createPet', 'replacePet', 'deletePet', 'adminStats']) {
      assert.ok(!names.includes(leftOut), `${leftOut} needs a credential that is not set`);
    }
    assert.ok(names.includes('listPets') && names.includes('health'));
  });

  test('a key the API refuses: the call is an isError result with the API message', async () => {
    const client = await startPlugin(api, { MCP_OPENAPI_API_KEY: 'not-the-key' });
    api.reset();
    const r = await call(client, 'createPet', { name: 'Bo' });
    await client.close();
    assert.equal(r.isError, true);
    assert.match(
      textOf(r),
      /^unauthorized: .*HTTP 401 Unauthorized: A valid X-API-Key header is required\. Retrying the same call will not help\. The API did not accept/,
    );
    assert.equal(api.requests[0]?.headers['x-api-key'], 'not-the-key');
  });

  test('the key goes where MCP_OPENAPI_API_KEY_QUERY says, and never into a message', async () => {
    const client = await startPlugin(api, {
      MCP_OPENAPI_API_KEY: API_KEY,
      MCP_OPENAPI_API_KEY_QUERY: 'api_key',
    });
    api.reset(); // the start-up check's probe of /health
    api.failNext('/pets', 500);
    const r = await call(client, 'createPet', { name: 'Bo' });
    await client.close();
    assert.equal(api.requests[0]?.target, `/v1/pets?api_key=${API_KEY}`);
    assert.equal(api.requests[0]?.headers['x-api-key'], undefined);
    assert.ok(!textOf(r).includes(API_KEY));
  });

  test('a refused connection is a retryable isError result', async () => {
    const dead = await startFake();
    const baseUrl = dead.baseUrl;
    await dead.close();
    const client = await startPlugin(api, { MCP_OPENAPI_BASE_URL: baseUrl, MCP_OPENAPI_RETRIES: '1' });
    const r = await call(client, 'showPetById', { petId: 1 });
    await client.close();
    assert.equal(r.isError, true);
    assert.match(
      textOf(r),
      /^unreachable: Could not reach the API for GET \/pets\/\{petId\} \(showPetById\) \(after 2 attempts\): ECONNREFUSED .*Retrying later may succeed\. The API could not be reached\.$/,
    );
  });

  test('a timeout is an isError result, not retried', async () => {
    // The bound covers loading the document too: 1.5 s leaves a loaded machine room for that.
    const client = await startPlugin(api, { MCP_OPENAPI_TIMEOUT_MS: '1500' });
    api.reset(); // the start-up check's probe of /health
    const r = await call(client, 'slow', { ms: 15_000 });
    await client.close();
    assert.equal(r.isError, true);
    assert.equal(
      textOf(r),
      'timeout: The API did not answer GET /slow (slow) within 1500 ms. Retrying later may succeed. The API did not answer in time.',
    );
    // Timeouts are not retried: the time budget is spent.
    assert.equal(api.requests.length, 1);
  });

  test('a body over MCP_OPENAPI_MAX_RESPONSE_BYTES is cut with a note; structured answers become errors', async () => {
    const client = await startPlugin(api, {
      MCP_OPENAPI_MAX_RESPONSE_BYTES: '1024',
      MCP_OPENAPI_API_KEY: API_KEY,
    });
    const text = await call(client, 'getFile', { name: 'x'.repeat(3000) });
    assert.notEqual(text.isError, true);
    assert.match(
      textOf(text),
      /^\/v1\/files\/x{1014}\n\n\[Response cut at 1024 bytes of 3010 \(MCP_OPENAPI_MAX_RESPONSE_BYTES\)/,
    );
    await call(client, 'createPet', { name: 'y'.repeat(2000) });
    const big = await call(client, 'showPetById', { petId: 100 });
    await client.close();
    assert.equal(big.isError, true);
    assert.equal(big.structuredContent, undefined);
    assert.match(
      textOf(big),
      /^response_too_large: .*over the MCP_OPENAPI_MAX_RESPONSE_BYTES limit of 1024 bytes, so it is not returned as structured content/,
    );
  });

  test('read-only mode offers only GET and HEAD operations', async () => {
    const client = await startPlugin(api, {
      MCP_OPENAPI_READ_ONLY: 'true',
      MCP_OPENAPI_BEARER_TOKEN: BEARER_TOKEN,
    });
    const names = (await client.listTools()).map((t) => t.name);
    await client.close();
    assert.deepEqual(names, [
      'listPets',
      'showPetById',
      'petPhoto',
      'getFile',
      'getInventory',
      'adminStats',
      'slow',
      'health',
    ]);
  });

  test('include and exclude pick operations by tag, id and path', async () => {
    const client = await startPlugin(api, {
      MCP_OPENAPI_API_KEY: API_KEY,
      MCP_OPENAPI_INCLUDE: 'pets,/health',
      MCP_OPENAPI_EXCLUDE: 'DELETE /pets/*,petPhoto',
    });
    const names = (await client.listTools()).map((t) => t.name);
    await client.close();
    assert.deepEqual(names, ['listPets', 'createPet', 'showPetById', 'replacePet', 'health']);
  });

  test('the 2026 wire serves the same tools and results', async () => {
    const client = await startPlugin(api, {}, '2026');
    const r = await call(client, 'showPetById', { petId: 2 });
    await client.close();
    assert.equal((r.structuredContent as { name?: string }).name, 'Tom');
  });
});
