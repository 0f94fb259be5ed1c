/**
 * The openapi plugin's HTTP client on loopback servers: redirects followed with credentials
 * kept on the same origin and dropped on another, 303 turning a POST into a GET, the back-off
 * between retries (with Retry-After), and the body cap.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { retryAfterMs, type SendOptions, send } from '../../../plugins/openapi/http-client.ts';

interface Seen {
  method: string;
  target: string;
  headers: IncomingMessage['headers'];
}

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', target: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Served = Awaited<ReturnType<typeof serve>>;

let other: Served;
let main: Served;
before(async () => {
  other = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('elsewhere');
  });
  main = await serve((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/away') res.writeHead(302, { location: `${other.origin}/landed?key=k&x=1` }).end();
    else if (url.pathname === '/here') res.writeHead(307, { location: '/landed' }).end();
    else if (url.pathname === '/see-other') res.writeHead(303, { location: '/landed' }).end();
    else if (url.pathname === '/loop') res.writeHead(302, { location: '/loop' }).end();
    else if (url.pathname === '/big')
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '10000' }).end('x'.repeat(10_000));
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('landed');
  });
});
after(async () => {
  await main.close();
  await other.close();
});

function options(over: Partial<SendOptions> = {}): SendOptions {
  return {
    timeoutMs: 5000,
    retries: 0,
    maxBytes: 100_000,
    signal: new AbortController().signal,
    secretHeaders: ['x-api-key', 'authorization'],
    secretQuery: ['key'],
    ...over,
  };
}

function request(url: string, method = 'GET', body?: string) {
  const headers = new Headers({ 'x-api-key': 'k', authorization: 'Bearer t', 'x-other': 'kept' });
  if (body !== undefined) headers.set('content-type', 'application/json');
  return { method, url: new URL(url), headers, body };
}

describe('redirects', () => {
  test('to the same origin: followed with the credentials', async () => {
    const r = await send(request(`${main.origin}/here`), options());
    assert.equal(r.kind === 'response' && r.status, 200);
    const landed = main.seen.findLast((s) => s.target === '/landed');
    assert.equal(landed?.headers['x-api-key'], 'k');
    assert.equal(landed?.headers.authorization, 'Bearer t');
  });

  test('to another origin: followed without the credentials, header or query', async () => {
    const r = await send(request(`${main.origin}/away`), options());
    assert.equal(r.kind === 'response' && new TextDecoder().decode(r.body), 'elsewhere');
    const [landed] = other.seen;
    assert.equal(landed?.target, '/landed?x=1');
    assert.equal(landed?.headers['x-api-key'], undefined);
    assert.equal(landed?.headers.authorization, undefined);
    assert.equal(landed?.headers['x-other'], 'kept');
  });

  test('303 after a POST continues as a GET without the body', async () => {
    const before = main.seen.length;
    await send(request(`${main.origin}/see-other`, 'POST', '{"a":1}'), options());
    const hops = main.seen.slice(before);
    assert.deepEqual(
      hops.map((s) => [s.method, s.target, s.headers['content-type']]),
      [
        ['POST', '/see-other', 'application/json'],
        ['GET', '/landed', undefined],
      ],
    );
  });

  test('at most five are followed; then the redirect is the answer', async () => {
    const before = main.seen.length;
    const r = await send(request(`${main.origin}/loop`), options());
    assert.equal(r.kind === 'response' && r.status, 302);
    assert.equal(main.seen.length - before, 6);
  });
});

describe('retries and the body cap', () => {
  test('back-off doubles from about 200 ms, and Retry-After can lengthen a wait', async () => {
    let calls = 0;
    const flaky = await serve((_req, res) => {
      calls++;
      res.writeHead(503, calls === 2 ? { 'retry-after': '3' } : {}).end();
    });
    const waits: number[] = [];
    const r = await send(
      request(`${flaky.origin}/x`),
      options({ retries: 3, sleep: async (ms) => void waits.push(ms) }),
    );
    await flaky.close();
    assert.equal(r.attempts, 4);
    assert.equal(waits.length, 3);
    assert.ok(waits[0]! >= 100 && waits[0]! <= 200, String(waits));
    assert.equal(waits[1], 3000);
    assert.ok(waits[2]! >= 400 && waits[2]! <= 800, String(waits));
  });

  test('Retry-After as a date; bodies past maxBytes are cut and marked', async () => {
    assert.equal(retryAfterMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4000), 6000);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': 'soon' })), undefined);
    const r = await send(request(`${main.origin}/big`), options({ maxBytes: 1000 }));
    assert.ok(r.kind === 'response');
    assert.equal(r.body.byteLength, 1000);
    assert.equal(r.truncated, true);
    assert.equal(r.declaredBytes, 10_000);
  });

  test('an aborted signal rejects with its reason instead of returning an outcome', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled by the client'));
    await assert.rejects(
      send(request(`${main.origin}/here`), options({ signal: controller.signal })),
      /cancelled by the client/,
    );
  });
});
