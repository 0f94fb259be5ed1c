/**
 * The wrk load generator of the benchmark (bench/harness/wrk-load.ts): every response is
 * checked (a wrong body or a non-2xx status is counted, never passed as a result), each
 * request carries a fresh id, and headers and body reach the server byte for byte. Needs
 * `wrk` (.ci/run installs it); skipped with a reason where it is missing.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { hasWrk, runWrk } from '../../bench/harness/wrk-load.ts';

const UNPINNED = { pinned: false } as const;
const GOOD = '{"jsonrpc":"2.0","id":"x","result":{"structuredContent":{"sum":5}}}';

interface Seen {
  ids: string[];
  headers: string[];
  bodies: string[];
}

async function serve(answer: (n: number) => { status: number; body: string }) {
  const seen: Seen = { ids: [], headers: [], bodies: [] };
  let n = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const id = (JSON.parse(body) as { id: string }).id;
      seen.ids.push(id);
      if (seen.bodies.length < 3) seen.bodies.push(body);
      seen.headers.push(String(req.headers['x-quoted']));
      const reply = answer(n++);
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const job = (url: string) => ({
  url,
  headers: { 'content-type': 'application/json', 'x-quoted': 'a "quoted" \\ value' },
  body: '{"jsonrpc":"2.0","id":"[<id>]","method":"tools/call","params":{"name":"add","note":"ü"}}',
  connections: 2,
  durationSec: 1,
  expectSum: 5,
});

describe('wrk load generator', {
  skip: hasWrk() ? false : 'wrk is not installed (apt-get install wrk)',
}, () => {
  let servers: { close(): Promise<void> }[] = [];
  before(() => {
    servers = [];
  });
  after(async () => {
    for (const s of servers) await s.close();
  });

  it('counts correct answers, sends a fresh id per request and the headers and body unchanged', async () => {
    const server = await serve(() => ({ status: 200, body: GOOD }));
    servers.push(server);
    const result = await runWrk(job(server.url), UNPINNED);
    assert.ok(result.requests > 0, 'no requests');
    assert.equal(result.mismatches, 0);
    assert.equal(result.non2xx, 0);
    assert.equal(result.errors, 0);
    assert.ok(result.p50Ms > 0 && result.p99Ms >= result.p50Ms);
    assert.ok(result.durationSec > 0.5 && result.durationSec < 5);
    assert.ok(Number.isFinite(result.loadCpuUs) && result.loadCpuUs >= 0);
    assert.equal(new Set(server.seen.ids).size, server.seen.ids.length, 'an id was sent twice');
    assert.ok(server.seen.ids.length >= result.requests);
    assert.ok(server.seen.headers.every((h) => h === 'a "quoted" \\ value'));
    for (const body of server.seen.bodies) {
      assert.match(
        body,
        /^\{"jsonrpc":"2\.0","id":"[^"]+","method":"tools\/call","params":\{"name":"add","note":"ü"\}\}$/,
      );
    }
    // A second round never reuses the first round's ids (one 2025 session spans rounds).
    const firstIds = new Set(server.seen.ids);
    server.seen.ids.length = 0;
    await runWrk({ ...job(server.url), durationSec: 1 }, UNPINNED);
    assert.ok(
      server.seen.ids.every((id) => !firstIds.has(id)),
      'ids repeat across rounds',
    );
  });

  it('counts wrong bodies, tool errors and non-2xx answers against the server', async () => {
    const server = await serve((n) =>
      n % 4 === 0
        ? { status: 200, body: GOOD }
        : n % 4 === 1
          ? { status: 200, body: '{"jsonrpc":"2.0","id":"x","result":{"structuredContent":{"sum":6}}}' }
          : n % 4 === 2
            ? {
                status: 200,
                body: '{"jsonrpc":"2.0","id":"x","result":{"isError":true,"structuredContent":{"sum":5}}}',
              }
            : { status: 500, body: GOOD },
    );
    servers.push(server);
    const result = await runWrk(job(server.url), UNPINNED);
    assert.ok(result.requests >= 4, `only ${result.requests} requests`);
    assert.ok(result.mismatches > 0, 'wrong bodies were not counted');
    assert.ok(result.non2xx > 0, 'HTTP 500 was not counted');
    // About half wrong bodies, a quarter 500s (the last few may be cut off by the round's end).
    assert.ok(Math.abs(result.mismatches - result.requests / 2) <= 4, JSON.stringify(result));
    assert.ok(Math.abs(result.non2xx - result.requests / 4) <= 4, JSON.stringify(result));
  });

  it('fails with the reason when it cannot reach the server', async () => {
    await assert.rejects(
      runWrk(job('http://127.0.0.1:9/mcp'), UNPINNED),
      /^Error: wrk failed \(exit 1\): unable to connect to 127\.0\.0\.1:9/,
    );
  });
});
