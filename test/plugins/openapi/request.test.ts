/**
 * Requests built from arguments: OpenAPI 3's parameter styles for path, query, header and
 * cookie values, percent-encoding that keeps arguments inside their segment, credentials in
 * the place their scheme names, JSON and form bodies, and base URLs that keep their path.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Credential } from '../../../plugins/openapi/credentials.ts';
import type { Operation, OperationObject, ParameterObject } from '../../../plugins/openapi/document.ts';
import { buildRequest, joinUrl } from '../../../plugins/openapi/request.ts';
import { planInput } from '../../../plugins/openapi/tool-input.ts';

function request(
  path: string,
  operation: OperationObject,
  args: Record<string, unknown>,
  credentials: Credential[] = [],
  baseUrl = 'https://api.example.com/v1',
) {
  const op: Operation = { method: 'post', path, operation, pathItem: {}, label: path };
  const plan = planInput(op, '3.0', []);
  assert.ok(!('unsupported' in plan));
  return buildRequest(op, plan, args, {
    baseUrl,
    credentials,
    userAgent: 'test-agent/1',
    accept: 'application/json',
  });
}

const param = (
  p: Partial<ParameterObject> & { name: string; in: ParameterObject['in'] },
): ParameterObject => ({
  schema: { type: 'string' },
  ...p,
});

describe('path parameters', () => {
  test('values are percent-encoded, so they stay in their segment', () => {
    const r = request(
      '/files/{name}',
      { parameters: [param({ name: 'name', in: 'path' })] },
      { name: '../a/b c?x=1#f' },
    );
    assert.equal(r.url.href, 'https://api.example.com/v1/files/..%2Fa%2Fb%20c%3Fx%3D1%23f');
  });

  test('a value that would make a `.` or `..` segment is refused; encoded dots stay data', () => {
    const op = { parameters: [param({ name: 'id', in: 'path' })] };
    for (const id of ['..', '.']) {
      assert.throws(() => request('/items/{id}/details', op, { id }), /would change the path/, id);
      assert.throws(() => request('/{id}', op, { id }), /would change the path/, id);
    }
    assert.equal(
      request('/items/{id}/details', op, { id: '%2e%2e' }).url.pathname,
      '/v1/items/%252e%252e/details',
    );
    assert.equal(request('/items/{id}/details', op, { id: '...' }).url.pathname, '/v1/items/.../details');
  });

  test('simple, label and matrix styles, exploded or not', () => {
    const cases: [Partial<ParameterObject>, unknown, string][] = [
      [{}, 5, '/p/5'],
      [{}, ['a', 'b'], '/p/a,b'],
      [{}, { r: 1, g: 2 }, '/p/r,1,g,2'],
      [{ explode: true }, { r: 1, g: 2 }, '/p/r=1,g=2'],
      [{ style: 'label' }, ['a', 'b'], '/p/.a,b'],
      [{ style: 'label', explode: true }, ['a', 'b'], '/p/.a.b'],
      [{ style: 'matrix' }, 'x', '/p/;id=x'],
      [{ style: 'matrix' }, ['a', 'b'], '/p/;id=a,b'],
      [{ style: 'matrix', explode: true }, ['a', 'b'], '/p/;id=a;id=b'],
    ];
    for (const [style, value, path] of cases) {
      const r = request(
        '/p/{id}',
        { parameters: [param({ name: 'id', in: 'path', ...style })] },
        { id: value },
        [],
        'https://h',
      );
      assert.equal(r.url.pathname, path, JSON.stringify({ style, value }));
    }
  });
});

describe('query parameters', () => {
  const query = (p: Partial<ParameterObject>, value: unknown) =>
    request('/q', { parameters: [param({ name: 'c', in: 'query', ...p })] }, { c: value }).url.search;

  test('form style: arrays repeat when exploded (the default), join with commas when not', () => {
    assert.equal(query({}, ['blue', 'black']), '?c=blue&c=black');
    assert.equal(query({ explode: false }, ['blue', 'black']), '?c=blue,black');
    assert.equal(query({}, { r: 1, g: 2 }), '?r=1&g=2');
    assert.equal(query({ explode: false }, { r: 1, g: 2 }), '?c=r,1,g,2');
  });

  test('space- and pipe-delimited arrays, deepObject objects', () => {
    assert.equal(query({ style: 'spaceDelimited', explode: false }, ['a', 'b']), '?c=a%20b');
    assert.equal(query({ style: 'pipeDelimited', explode: false }, ['a', 'b']), '?c=a|b');
    assert.equal(
      query({ style: 'deepObject', explode: true }, { r: 1, g: 'x y' }),
      '?c%5Br%5D=1&c%5Bg%5D=x%20y',
    );
  });

  test('values are encoded, delimiters inside a value too', () => {
    assert.equal(query({ explode: false }, ['a,b', 'c&d=e']), '?c=a%2Cb,c%26d%3De');
    assert.equal(query({}, 'é ü'), '?c=%C3%A9%20%C3%BC');
  });

  test('a parameter declared with content is sent as JSON', () => {
    const r = request(
      '/q',
      {
        parameters: [
          { name: 'filter', in: 'query', content: { 'application/json': { schema: { type: 'object' } } } },
        ],
      },
      { filter: { a: [1, 2] } },
    );
    assert.equal(decodeURIComponent(r.url.search), '?filter={"a":[1,2]}');
  });

  test('absent optional parameters are not sent; the base URL query stays first', () => {
    const r = request(
      '/q',
      { parameters: [param({ name: 'a', in: 'query' }), param({ name: 'b', in: 'query' })] },
      { b: 'x' },
      [],
      'https://h/v1?api-version=2',
    );
    assert.equal(r.url.href, 'https://h/v1/q?api-version=2&b=x');
  });
});

describe('headers, cookies and credentials', () => {
  test('header and cookie parameters, the User-Agent and Accept', () => {
    const r = request(
      '/h',
      {
        parameters: [
          param({ name: 'X-Ids', in: 'header', schema: { type: 'array' } }),
          param({ name: 'session', in: 'cookie' }),
          param({ name: 'theme', in: 'cookie' }),
        ],
      },
      { 'X-Ids': [1, 2], session: 'a b', theme: 'dark' },
    );
    assert.equal(r.headers.get('x-ids'), '1,2');
    assert.equal(r.headers.get('cookie'), 'session=a%20b; theme=dark');
    assert.equal(r.headers.get('user-agent'), 'test-agent/1');
    assert.equal(r.headers.get('accept'), 'application/json');
  });

  test('a bearer token, and API keys in a header, the query or a cookie', () => {
    const r = request('/c', {}, {}, [
      { kind: 'bearer', token: 't0k' },
      { kind: 'apiKey', in: 'header', name: 'X-API-Key', value: 'k1' },
      { kind: 'apiKey', in: 'query', name: 'api_key', value: 'k 2' },
      { kind: 'apiKey', in: 'cookie', name: 'key', value: 'k3' },
    ]);
    assert.equal(r.headers.get('authorization'), 'Bearer t0k');
    assert.equal(r.headers.get('x-api-key'), 'k1');
    assert.equal(r.url.search, '?api_key=k%202');
    assert.equal(r.headers.get('cookie'), 'key=k3');
  });
});

describe('bodies', () => {
  const body = (content: OperationObject['requestBody'], args: Record<string, unknown>) =>
    request(
      '/b/{id}',
      { parameters: [param({ name: 'id', in: 'path' })], requestBody: content },
      { id: '7', ...args },
    );

  test('a merged JSON body takes the arguments that are not parameters', () => {
    const r = body(
      {
        required: true,
        content: {
          'application/json': {
            schema: { type: 'object', properties: { name: { type: 'string' }, n: { type: 'integer' } } },
          },
        },
      },
      { name: 'Rex', n: 2 },
    );
    assert.equal(r.url.pathname, '/v1/b/7');
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.deepEqual(JSON.parse(String(r.body)), { name: 'Rex', n: 2 });
  });

  test('an optional merged body with no arguments is not sent', () => {
    const r = body(
      {
        content: {
          'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } } } },
        },
      },
      {},
    );
    assert.equal(r.body, undefined);
    assert.equal(r.headers.get('content-type'), null);
  });

  test('a whole body is sent as given, with its media type', () => {
    const r = body(
      { required: true, content: { 'application/merge-patch+json': { schema: { type: 'array' } } } },
      { body: [1, 'a'] },
    );
    assert.equal(r.body, '[1,"a"]');
    assert.equal(r.headers.get('content-type'), 'application/merge-patch+json');
  });

  test('a form body is URL-encoded', () => {
    const r = body(
      {
        content: {
          'application/x-www-form-urlencoded': {
            schema: { type: 'object', properties: { a: { type: 'string' }, tags: { type: 'array' } } },
          },
        },
      },
      { a: 'x y&z', tags: ['p', 'q'] },
    );
    assert.equal(r.body, 'a=x+y%26z&tags=p&tags=q');
    assert.equal(r.headers.get('content-type'), 'application/x-www-form-urlencoded');
  });
});

test('joinUrl keeps the base path, with or without slashes', () => {
  assert.equal(joinUrl('https://h/v1/', '/pets').href, 'https://h/v1/pets');
  assert.equal(joinUrl('https://h/v1', 'pets').href, 'https://h/v1/pets');
  assert.equal(joinUrl('https://h', '/pets').href, 'https://h/pets');
});
