/**
 * The mapping of an API answer to a tool result, on answers built by hand: the API's error
 * message found in the usual body shapes, structured content checked against the output
 * schema, the answers that cannot be structured, binary bodies, and secrets scrubbed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SendResult } from '../../../plugins/openapi/http-client.ts';
import { apiMessage, type ResponseContext, toToolResult } from '../../../plugins/openapi/response.ts';
import type { ToolResult } from '../../../src/index.ts';

function answer(
  status: number,
  body: string | Uint8Array,
  contentType = 'application/json',
  extra: Partial<Extract<SendResult, { kind: 'response' }>> = {},
): SendResult {
  return {
    kind: 'response',
    status,
    statusText: '',
    headers: new Headers(contentType ? { 'content-type': contentType } : {}),
    body: typeof body === 'string' ? new TextEncoder().encode(body) : body,
    truncated: false,
    declaredBytes: undefined,
    attempts: 1,
    url: new URL('https://api.example.com/v1/things/1?api_key=secret-value'),
    ...extra,
  };
}

const schemaCheck = (value: unknown): { ok: true } | { ok: false; issues: string[] } =>
  typeof value === 'object' && value !== null && 'id' in value
    ? { ok: true }
    : { ok: false, issues: ['(root): must have required property id'] };

function context(over: Partial<ResponseContext> = {}): ResponseContext {
  return {
    label: 'GET /things/{id} (getThing)',
    method: 'GET',
    output: undefined,
    validateOutput: schemaCheck,
    maxBytes: 1000,
    timeoutMs: 500,
    secrets: ['secret-value'],
    ...over,
  };
}

const objectOutput = { schema: { type: 'object' }, wrapped: false };
const text = (r: ToolResult<unknown>) =>
  (r.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('the API message of an error answer', () => {
  test('the usual JSON shapes', () => {
    const cases: [unknown, string][] = [
      [
        { type: 'about:blank', title: 'Bad Request', detail: 'limit must be positive' },
        'Bad Request: limit must be positive',
      ],
      [{ message: 'Pet 9 not found' }, 'Pet 9 not found'],
      [{ error: 'invalid_token', error_description: 'The token expired' }, 'The token expired'],
      [{ error: { code: 7, message: 'Quota exceeded' } }, 'Quota exceeded'],
      [{ errors: [{ message: 'name is required' }, { message: 'other' }] }, 'name is required'],
      [{ detail: 'Not found.' }, 'Not found.'],
      ['plain string', 'plain string'],
    ];
    for (const [body, expected] of cases)
      assert.equal(apiMessage(JSON.stringify(body), 'application/json'), expected);
  });

  test('text is trimmed, long messages cut', () => {
    assert.equal(apiMessage('  upstream\n  broke  ', 'text/plain'), 'upstream broke');
    const long = apiMessage('x'.repeat(2000), 'text/plain');
    assert.equal(long.length, 501);
    assert.ok(long.endsWith('…'));
  });
});

describe('tool results', () => {
  test('2xx JSON with an output schema: structured content and the JSON as text', () => {
    const r = toToolResult(answer(200, '{"id":1,"name":"a"}'), context({ output: objectOutput }));
    assert.deepEqual(r, {
      kind: 'tool_result',
      content: [{ type: 'text', text: '{"id":1,"name":"a"}' }],
      structured: { id: 1, name: 'a' },
    });
  });

  test('a wrapped output schema puts the JSON under result', () => {
    const r = toToolResult(
      answer(200, '[1,2]'),
      context({
        output: { schema: { type: 'object' }, wrapped: true },
        validateOutput: () => ({ ok: true }),
      }),
    );
    assert.deepEqual(r.structured, { result: [1, 2] });
  });

  test('a 2xx that breaks the declared schema is an error that shows the answer', () => {
    const r = toToolResult(answer(200, '{"name":"a"}'), context({ output: objectOutput }));
    assert.equal(r.isError, true);
    assert.equal(r.structured, undefined);
    assert.match(
      text(r),
      /^unexpected_response: .*does not match the schema its API document declares \(\(root\): must have required property id\); the response: \{"name":"a"\}\. Retrying the same call will not help\./,
    );
  });

  test('a 2xx without the promised JSON is an error', () => {
    const r = toToolResult(
      answer(200, '<html>maintenance</html>', 'text/html'),
      context({ output: objectOutput }),
    );
    assert.equal(r.isError, true);
    assert.match(
      text(r),
      /^unexpected_response: .*without the JSON its API document promises \(text\/html\): <html>maintenance<\/html>/,
    );
  });

  test('without an output schema, JSON and text are text, empty bodies say the status', () => {
    assert.equal(text(toToolResult(answer(200, '{"a":1}'), context())), '{"a":1}');
    assert.equal(text(toToolResult(answer(200, 'hello', 'text/plain; charset=utf-8'), context())), 'hello');
    assert.equal(
      text(
        toToolResult(answer(200, '', 'text/plain', { headers: new Headers({ etag: '"v1"' }) }), context()),
      ),
      'HTTP 200 (etag "v1")',
    );
  });

  test('other binary bodies are an embedded resource without the query', () => {
    const r = toToolResult(answer(200, new Uint8Array([1, 2, 3]), 'application/pdf'), context());
    assert.deepEqual(r.content, [
      {
        type: 'resource',
        resource: { uri: 'https://api.example.com/v1/things/1', mimeType: 'application/pdf', blob: 'AQID' },
      },
    ]);
  });

  test('a 429 passes on when to retry', () => {
    const r = toToolResult(
      answer(429, '{"message":"slow down"}', 'application/json', {
        headers: new Headers({ 'retry-after': '30' }),
      }),
      context(),
    );
    assert.equal(
      text(r),
      'rate_limited: GET /things/{id} (getThing) was refused: HTTP 429: slow down (retry after 30 s). Retrying later may succeed. The API limits how often it may be called: wait before calling again.',
    );
  });

  test('a timed-out write says it may have been carried out; a read does not', () => {
    const write = toToolResult(
      { kind: 'timeout', attempts: 1, url: new URL('https://h/x') },
      context({ method: 'POST' }),
    );
    assert.equal(write.isError, true);
    assert.match(
      text(write),
      /^timeout: .*within 500 ms; it may or may not have been carried out, so check before repeating it\. Retrying later may succeed\./,
    );
    const read = toToolResult({ kind: 'timeout', attempts: 1, url: new URL('https://h/x') }, context());
    assert.ok(!text(read).includes('carried out'));
  });

  test('secrets are scrubbed from every text', () => {
    const r = toToolResult(answer(400, '{"message":"bad key secret-value"}'), context());
    assert.equal(r.isError, true);
    assert.ok(!text(r).includes('secret-value'));
    assert.match(text(r), /bad key ••••••/);
  });
});
