/**
 * Refusals at the HTTP edge (docs/deployment.md; docs/internals/conformance-fixture.md §1): body size,
 * content type, malformed JSON, prototype poisoning, DNS rebinding (Host and Origin), Accept,
 * and an unsupported MCP-Protocol-Version. Each answers a JSON-RPC error body with the
 * status the rule requires.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../src/base/errors.ts';
import {
  buildTestApp,
  expectError,
  jsonReply,
  openSession,
  post,
  req,
  type TestApp,
  V2025,
} from './http-helpers.ts';

const INIT = req(1, 'initialize', {
  protocolVersion: V2025,
  capabilities: {},
  clientInfo: { name: 'edge-test', version: '1.0.0' },
});

let t: TestApp;
let url: string;
before(async () => {
  t = await buildTestApp({ MCP_MAX_BODY_BYTES: '1024' });
  url = await t.listen();
});
after(() => t.close());

/** A raw POST over the socket with a chunked body (no Content-Length). */
function postChunked(chunks: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    r.on('error', reject);
    for (const c of chunks) r.write(c);
    r.end();
  });
}

describe('body', () => {
  test('a body over MCP_MAX_BODY_BYTES with Content-Length is 413 with a JSON-RPC error', async () => {
    const big = JSON.stringify(req(5, 'tools/list', { pad: 'x'.repeat(2000) }));
    const res = await post(t.app, big);
    assert.equal(res.headers['content-length'] === undefined, false);
    expectError(res, 413, ErrorCode.PayloadTooLarge, null);
  });

  test('a chunked body over MCP_MAX_BODY_BYTES is 413 with a JSON-RPC error', async () => {
    const pad = 'x'.repeat(600);
    const res = await postChunked([
      `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":"${pad}",`,
      `"b":"${pad}"}}`,
    ]);
    assert.equal(res.status, 413);
    const body = JSON.parse(res.body) as { id: unknown; error: { code: number } };
    assert.equal(body.id, null);
    assert.equal(body.error.code, ErrorCode.PayloadTooLarge);
  });

  test('a chunked body under the limit is served', async () => {
    const res = await postChunked([JSON.stringify(INIT).slice(0, 20), JSON.stringify(INIT).slice(20)]);
    assert.equal(res.status, 200, res.body);
  });

  test('a non-JSON content type is 415', async () => {
    const res = await post(t.app, JSON.stringify(INIT), { headers: { 'content-type': 'text/plain' } });
    expectError(res, 415, ErrorCode.UnsupportedMediaType, null);
  });

  test('malformed JSON (and an empty body) is 400 with -32700 and id null', async () => {
    expectError(await post(t.app, '{"jsonrpc":"2.0","id":1,'), 400, ErrorCode.ParseError, null);
    expectError(await post(t.app, ''), 400, ErrorCode.ParseError, null);
  });

  test('__proto__ and constructor.prototype keys are refused with 400', async () => {
    const proto = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"__proto__":{"polluted":true}}}';
    expectError(await post(t.app, proto), 400, ErrorCode.ParseError, null);
    const ctor = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"constructor":{"prototype":{"x":1}}}}';
    expectError(await post(t.app, ctor), 400, ErrorCode.ParseError, null);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('DNS-rebinding protection (loopback bind)', () => {
  test('Host evil.example.com is 403', async () => {
    const res = await post(t.app, INIT, { headers: { host: 'evil.example.com' } });
    expectError(res, 403, ErrorCode.HostNotAllowed, null);
  });

  test('Origin http://evil.example.com is 403', async () => {
    const res = await post(t.app, INIT, {
      headers: { host: 'localhost:8000', origin: 'http://evil.example.com' },
    });
    expectError(res, 403, ErrorCode.OriginNotAllowed, null);
  });

  test('localhost and 127.0.0.1 hosts (and origins) with any port are served', async () => {
    for (const host of ['localhost', 'localhost:8000', '127.0.0.1', `127.0.0.1:${new URL(url).port}`]) {
      const res = await post(t.app, INIT, { headers: { host, origin: `http://${host}` } });
      assert.equal(res.statusCode, 200, `${host}: ${res.body}`);
      jsonReply(res, V2025, 'initialize');
    }
  });

  test('over a real socket: the URL’s own Host and Origin are 2xx, evil ones 403', async () => {
    const own = new URL(url).host;
    const send = (headers: Record<string, string>) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(INIT),
      });
    const ok = await send({ origin: `http://${own}` });
    assert.equal(ok.status, 200);
    await ok.arrayBuffer();
    const evil = await send({ origin: 'http://evil.example.com' });
    assert.equal(evil.status, 403);
    await evil.arrayBuffer();
  });
});

describe('headers', () => {
  test('an Accept that allows neither JSON nor SSE is 406', async () => {
    // The body has been read by then: the refusal echoes the request's id.
    expectError(await post(t.app, INIT, { accept: 'text/html' }), 406, ErrorCode.NotAcceptable, 1);
  });

  test('an unsupported MCP-Protocol-Version on a 2025-wire request is 400, echoing the id', async () => {
    const session = await openSession(t.app);
    const res = await post(t.app, req(9, 'tools/list'), { session, version: '1999-01-01' });
    expectError(res, 400, ErrorCode.BadRequest, 9);
  });

  test('the health probes answer, whatever the Host (probes skip the Host check)', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/healthz', headers: { host: '10.0.0.7:8000' } });
    assert.equal(health.statusCode, 200);
    assert.deepEqual(health.json(), { status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.equal(ready.json().status, 'ready');
  });
});
