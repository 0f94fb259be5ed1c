/**
 * Integer ids past Number.MAX_SAFE_INTEGER come back as sent, digit for digit: JSON.parse
 * alone would round 12345678901234567890 to 12345678901234567000. Raw bodies over real HTTP
 * (127.0.0.1) on the 2025 wire (single, batch, refusal, cancellation, progress) and the 2026
 * wire, and raw lines over a spawned stdio server; each check reads the response text.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { spawnStdioServer } from '../helpers/spawn-server.ts';
import { until } from '../helpers/until.ts';
import { buildTestApp, ECHO_PLUGIN, parseSse, type TestApp, V2025, V2026 } from './http-helpers.ts';

const BIG = '12345678901234567890';
const BIG2 = '98765432109876543211';
const NEG = '-9007199254740993';
const ENVELOPE = `{"io.modelcontextprotocol/protocolVersion":"${V2026}","io.modelcontextprotocol/clientCapabilities":{}}`;

/** The exact id field, so that a rounded id (…567000) never matches. */
const idField = (digits: string) => new RegExp(`"id":${digits}[,}]`);

interface Raw {
  status: number;
  text: string;
  headers: Headers;
}

async function postRaw(url: string, body: string, headers: Record<string, string> = {}): Promise<Raw> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

describe('integer ids past Number.MAX_SAFE_INTEGER over HTTP', () => {
  let t: TestApp;
  let url: string;
  before(async () => {
    t = await buildTestApp();
    url = await t.listen();
  });
  after(() => t.close());

  async function session(version = V2025, id = BIG): Promise<string> {
    const res = await postRaw(
      url,
      `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"protocolVersion":"${version}","capabilities":{},"clientInfo":{"name":"big","version":"1"}}}`,
      { accept: 'application/json' },
    );
    assert.equal(res.status, 200, res.text);
    assert.match(res.text, idField(id));
    const sid = res.headers.get('mcp-session-id');
    assert.ok(sid);
    const ack = await postRaw(url, '{"jsonrpc":"2.0","method":"notifications/initialized"}', {
      'mcp-session-id': sid,
      'mcp-protocol-version': version,
    });
    assert.equal(ack.status, 202);
    return sid;
  }

  test('2025 wire: initialize and ping echo the digits, negative ones too', async () => {
    const sid = await session();
    const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': V2025, accept: 'application/json' };
    for (const id of [BIG, NEG]) {
      const res = await postRaw(url, `{"jsonrpc":"2.0","id":${id},"method":"ping"}`, headers);
      assert.equal(res.status, 200, res.text);
      assert.match(res.text, idField(id));
    }
    // A tool call's id, and a number in its arguments is still just a number (validated as one).
    const call = await postRaw(
      url,
      `{"jsonrpc":"2.0","id":${BIG},"method":"tools/call","params":{"name":"add","arguments":{"a":${BIG2},"b":1}}}`,
      headers,
    );
    assert.match(call.text, idField(BIG));
    assert.match(call.text, /"sum":98765432109876540000/);
  });

  test('2025 wire: an error reply and an edge refusal echo the digits', async () => {
    const sid = await session();
    const unknown = await postRaw(url, `{"jsonrpc":"2.0","id":${BIG},"method":"no/such"}`, {
      'mcp-session-id': sid,
      'mcp-protocol-version': V2025,
      accept: 'application/json',
    });
    assert.match(unknown.text, /"code":-32601/);
    assert.match(unknown.text, idField(BIG));
    const refused = await postRaw(url, `{"jsonrpc":"2.0","id":${BIG},"method":"ping"}`, {
      'mcp-session-id': sid,
      'mcp-protocol-version': '1999-01-01',
    });
    assert.equal(refused.status, 400);
    assert.match(refused.text, idField(BIG));
  });

  test('2025-03-26 batch: each member echoes its own digits', async () => {
    const sid = await session('2025-03-26');
    const res = await postRaw(
      url,
      `[{"jsonrpc":"2.0","id":${BIG},"method":"ping"},{"jsonrpc":"2.0","id":${BIG2},"method":"ping"},{"jsonrpc":"2.0","id":"${BIG}","method":"ping"}]`,
      { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-03-26', accept: 'application/json' },
    );
    assert.equal(res.status, 200, res.text);
    assert.match(res.text, idField(BIG));
    assert.match(res.text, idField(BIG2));
    assert.match(res.text, idField(`"${BIG}"`), 'the string id stays a string');
  });

  test('2025 wire: notifications/cancelled names the call by its digits', async () => {
    const sid = await session();
    const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': V2025 };
    const started = Date.now();
    const call = postRaw(
      url,
      `{"jsonrpc":"2.0","id":${BIG},"method":"tools/call","params":{"name":"slow","arguments":{"ms":15000}}}`,
      { ...headers, accept: 'application/json' },
    );
    // A cancel for a request not running yet is ignored: wait for the call to start.
    await until(() => t.server.dispatcher.inflightCount > 0, { message: 'the slow call never started' });
    // A different id that JSON.parse would round to the same number must not cancel it.
    const near = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345678901234567891}}`;
    assert.equal((await postRaw(url, near, headers)).status, 202);
    assert.equal(t.server.dispatcher.inflightCount, 1, 'the near id did not cancel the call');
    const cancel = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${BIG}}}`;
    assert.equal((await postRaw(url, cancel, headers)).status, 202);
    const res = await call;
    assert.ok(Date.now() - started < 10_000, 'the call was cancelled');
    assert.match(res.text, /"code":-32603/);
    assert.match(res.text, /cancel/);
    assert.match(res.text, idField(BIG));
  });

  test('2025 wire: progress notifications echo a big progress token', async () => {
    const sid = await session();
    const res = await postRaw(
      url,
      `{"jsonrpc":"2.0","id":${BIG},"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":${BIG2}}}}`,
      { 'mcp-session-id': sid, 'mcp-protocol-version': V2025, accept: 'text/event-stream' },
    );
    const data = parseSse(res.text).map((e) => e.data);
    assert.ok(
      data.some((d) => d.includes('notifications/progress') && d.includes(`"progressToken":${BIG2},`)),
      res.text,
    );
    assert.ok(
      data.some((d) => idField(BIG).test(d) && d.includes('"result"')),
      res.text,
    );
  });

  test('2025 wire: a client response with a big id is taken without a reply', async () => {
    const sid = await session();
    const res = await postRaw(url, `{"jsonrpc":"2.0","id":${BIG},"result":{}}`, {
      'mcp-session-id': sid,
      'mcp-protocol-version': V2025,
    });
    assert.equal(res.status, 202, res.text);
  });

  test('2026 wire: a request and an unknown method echo the digits', async () => {
    const headers = { 'mcp-protocol-version': V2026, 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
    const res = await postRaw(
      url,
      `{"jsonrpc":"2.0","id":${BIG},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":${ENVELOPE}}}`,
      { ...headers, accept: 'application/json' },
    );
    assert.equal(res.status, 200, res.text);
    assert.match(res.text, idField(BIG));
    const missing = await postRaw(
      url,
      `{"jsonrpc":"2.0","id":${NEG},"method":"no/such","params":{"_meta":${ENVELOPE}}}`,
      { 'mcp-protocol-version': V2026, 'mcp-method': 'no/such', accept: 'application/json' },
    );
    assert.equal(missing.status, 404, missing.text);
    assert.match(missing.text, idField(NEG));
  });
});

describe('integer ids past Number.MAX_SAFE_INTEGER over stdio', () => {
  test('each answer line carries the digits sent', async (t) => {
    const peer = spawnStdioServer({ MCP_PLUGINS: ECHO_PLUGIN });
    t.after(() => peer.stop());
    const line = (pattern: RegExp) =>
      until(() => peer.lines.find((l) => pattern.test(l)), {
        timeoutMs: 20_000,
        intervalMs: 20,
        message: `no line matching ${pattern}`,
      });
    peer.write(
      `{"jsonrpc":"2.0","id":${BIG},"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"big","version":"1"}}}\n`,
    );
    await line(idField(BIG));
    peer.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    peer.write(`{"jsonrpc":"2.0","id":${NEG},"method":"ping"}\n`);
    await line(idField(NEG));
    peer.write(`[{"jsonrpc":"2.0","id":${BIG2},"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]\n`);
    const batch = await line(idField(BIG2));
    assert.ok(batch.startsWith('['), batch);
    peer.write(
      `{"jsonrpc":"2.0","id":${BIG2}1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"progressToken":${BIG}}}}\n`,
    );
    await line(idField(`${BIG2}1`));
  });
});
