/**
 * The stdio transport as a client sees it: a real `mcp-toolkit run --transport stdio`
 * process, line-delimited JSON-RPC on stdin/stdout (MCP transports spec, "stdio": the server
 * MUST NOT write anything to stdout that is not a valid MCP message). Every message the
 * server writes is checked against the spec schema of the revision its request used.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../src/base/errors.ts';
import { type SpawnedProcess, type StdioPeer, spawnCli, spawnStdioServer } from '../helpers/spawn-server.ts';
import { assertValidServerMessage } from '../helpers/spec-schema.ts';
import { until } from '../helpers/until.ts';

const V2025 = '2025-11-25';
const V2026 = '2026-07-28';
const ECHO = './test/fixtures/echo-plugin.ts';
const NOISY = './test/transports/fixtures/noisy-plugin.ts';
const NOISY_STARTUP = './test/transports/fixtures/noisy-startup-plugin.ts';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': V2026,
  'io.modelcontextprotocol/clientCapabilities': {},
};

type Message = Record<string, unknown>;
type Id = string | number;

let peer: StdioPeer;
/** A second server: a plugin that prints while registering, plus the echo tools. */
let second: StdioPeer;
let badSetting: SpawnedProcess;
/** What each request id asked, so every answer is validated against the right definition. */
const asked = new Map<Id, { method: string; revision: string }>();

/** Sends a request, waits for its answer, checks it against the spec schema and returns it. */
async function rpc(id: Id, method: string, params?: Message, revision = V2025): Promise<Message> {
  asked.set(id, { method, revision });
  const reply = await peer.request(params === undefined ? { id, method } : { id, method, params });
  assertValidServerMessage(revision, reply, method);
  assert.ok(!('result' in reply && 'error' in reply), 'never both result and error');
  return reply;
}

function errorOf(reply: Message): { code: number; message: string; data?: unknown } {
  assert.ok('error' in reply, `expected an error, got ${JSON.stringify(reply)}`);
  return reply.error as { code: number; message: string; data?: unknown };
}

function resultOf(reply: Message): Message {
  assert.ok('result' in reply, `expected a result, got ${JSON.stringify(reply)}`);
  return reply.result as Message;
}

/** Resolves when stderr contains `text`, or rejects after a bounded wait. */
async function stderrIncludes(proc: SpawnedProcess, text: string): Promise<void> {
  await until(() => proc.stderr().includes(text), {
    message: `stderr never contained ${JSON.stringify(text)}`,
  });
}

/** Whether stderr holds the "mcp request" line (written once a request has ended) of `id`. */
function requestLogged(proc: SpawnedProcess, id: Id): boolean {
  return proc
    .stderr()
    .split('\n')
    .some((line) => {
      try {
        const entry = JSON.parse(line) as Message;
        return entry.msg === 'mcp request' && entry.requestId === id;
      } catch {
        return false;
      }
    });
}

/** Waits for the `slow` call carrying `progressToken` to report it is running. */
function slowStarted(from: number, progressToken: string): Promise<Message> {
  return peer.waitFor(
    (m) =>
      m.method === 'notifications/progress' &&
      (m.params as Message | undefined)?.progressToken === progressToken,
    from,
  );
}

before(async () => {
  // Start every process at once: start-up dominates the run time on a busy machine.
  // Info level: each request's "mcp request" line on stderr tells when a call has ended.
  peer = spawnStdioServer({
    MCP_PLUGINS: `${ECHO},${NOISY}`,
    MCP_MAX_BODY_BYTES: '1024',
    MCP_LOG_LEVEL: 'info',
  });
  second = spawnStdioServer({ MCP_PLUGINS: `${NOISY_STARTUP},${ECHO}`, MCP_INPUT_TIMEOUT_MS: '60000' });
  badSetting = spawnCli(['run', '--transport', 'http'], {
    MCP_HTTP_PORT: 'abc',
    MCP_PLUGINS: ECHO,
    MCP_LOG_FORMAT: 'pretty',
  });
  const init = await rpc('init', 'initialize', {
    protocolVersion: V2025,
    capabilities: {},
    clientInfo: { name: 'stdio-test', version: '1.0.0' },
  });
  assert.equal(resultOf(init).protocolVersion, V2025);
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
});

after(async () => {
  await Promise.all([peer.stop(), second.stop(), badSetting.stop()]);
});

describe('stdio: a session on one process', () => {
  test('a tool writing to stdout: the noise goes to stderr, only the answer to stdout', async () => {
    const reply = await rpc(1, 'tools/call', { name: 'noisy', arguments: {} });
    assert.deepEqual(resultOf(reply).content, [{ type: 'text', text: 'quiet' }]);
    await stderrIncludes(peer, 'noise');
    assert.ok(!peer.lines.some((l) => l.includes('noise')), 'no noise on stdout');
  });

  test('a garbage line gets -32700 with id null, and the stream goes on', async () => {
    const from = peer.lines.length;
    peer.write('this is not json\n');
    const error = await peer.waitFor((m) => m.id === null, from);
    assertValidServerMessage(V2025, error);
    assert.equal(errorOf(error).code, ErrorCode.ParseError);
    assert.deepEqual(resultOf(await rpc(2, 'ping')), {});
  });

  test('an over-long line gets one error with id null, and the stream goes on', async () => {
    for (const size of [2_000, 200_000]) {
      const from = peer.lines.length;
      const id = `long-${size}`;
      peer.send({ jsonrpc: '2.0', id, method: 'ping', params: { pad: 'x'.repeat(size) } });
      const pong = await rpc(`after-${size}`, 'ping');
      assert.deepEqual(resultOf(pong), {});
      const between = peer.lines.slice(from, -1).map((l) => JSON.parse(l) as Message);
      assert.equal(
        between.length,
        1,
        `exactly one answer to a ${size}-byte line: ${JSON.stringify(between)}`,
      );
      const [tooLong] = between as [Message];
      assert.equal(tooLong.id, null);
      assert.equal(errorOf(tooLong).code, ErrorCode.PayloadTooLarge);
      assertValidServerMessage(V2025, tooLong);
    }
  });

  test('the line limit counts UTF-8 bytes, not characters', async () => {
    // 600 × "é": about 660 characters but about 1,260 bytes against a 1,024-byte limit.
    const from = peer.lines.length;
    peer.send({ jsonrpc: '2.0', id: 'wide', method: 'ping', params: { pad: 'é'.repeat(600) } });
    assert.deepEqual(resultOf(await rpc('after-wide', 'ping')), {});
    const between = peer.lines.slice(from, -1).map((l) => JSON.parse(l) as Message);
    assert.equal(between.length, 1);
    assert.equal(errorOf(between[0]!).code, ErrorCode.PayloadTooLarge);
    // 300 × "é" (about 660 bytes) fits.
    assert.deepEqual(resultOf(await rpc('narrow', 'ping', { pad: 'é'.repeat(300) })), {});
  });

  test('an unknown tool is -32602, echoing the id', async () => {
    const reply = await rpc(3, 'tools/call', { name: 'no_such_tool', arguments: {} });
    assert.equal(reply.id, 3);
    assert.equal(errorOf(reply).code, ErrorCode.InvalidParams);
  });

  test('an unknown method is -32601', async () => {
    const reply = await rpc('m-4', 'no/such/method', {});
    assert.equal(reply.id, 'm-4');
    assert.equal(errorOf(reply).code, ErrorCode.MethodNotFound);
  });

  test('ping answers an empty object', async () => {
    const reply = await rpc(5, 'ping');
    assert.deepEqual(reply, { jsonrpc: '2.0', id: 5, result: {} });
  });

  test('an invalid request is -32600 echoing its id; a batch on 2025-11-25 is one -32600', async () => {
    let from = peer.lines.length;
    peer.send({ jsonrpc: '1.0', id: 'bad-1', method: 'ping' });
    const invalid = await peer.waitFor((m) => m.id === 'bad-1', from);
    assertValidServerMessage(V2025, invalid);
    assert.equal(errorOf(invalid).code, ErrorCode.InvalidRequest);
    from = peer.lines.length;
    peer.send([
      { jsonrpc: '2.0', id: 'b-1', method: 'ping' },
      { jsonrpc: '2.0', id: 'b-2', method: 'ping' },
    ]);
    await rpc('after-batch', 'ping');
    const answers = peer.lines.slice(from, -1).map((l) => JSON.parse(l) as Message);
    assert.equal(answers.length, 1, JSON.stringify(answers));
    assert.ok(!Array.isArray(answers[0]));
    assert.equal(errorOf(answers[0]!).code, ErrorCode.InvalidRequest);
    assert.equal(answers[0]!.id, null);
  });

  test('notifications get no reply', async () => {
    const from = peer.lines.length;
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    peer.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    peer.send({ jsonrpc: '2.0', method: 'notifications/no_such_thing', params: { x: 1 } });
    await rpc(6, 'ping');
    assert.equal(peer.lines.length - from, 1, 'only the ping was answered');
  });

  test('both wires on one stream: a 2026 envelope gets resultType, a 2025 request does not', async () => {
    const modern = resultOf(await rpc(7, 'tools/list', { _meta: ENVELOPE }, V2026));
    assert.equal(modern.resultType, 'complete');
    assert.equal(modern.ttlMs, 0);
    assert.equal(modern.cacheScope, 'private');
    const call = resultOf(
      await rpc(8, 'tools/call', { name: 'echo', arguments: { text: 'hi' }, _meta: ENVELOPE }, V2026),
    );
    assert.equal(call.resultType, 'complete');
    assert.deepEqual(call.content, [{ type: 'text', text: 'hi' }]);
    const legacy = resultOf(await rpc(9, 'tools/list', {}));
    assert.equal(legacy.resultType, undefined);
    assert.deepEqual(
      (legacy.tools as Message[]).map((t) => t.name),
      (modern.tools as Message[]).map((t) => t.name),
    );
  });

  test('progress notifications for a call go out on stdout before its result', async () => {
    const from = peer.lines.length;
    const reply = await rpc(10, 'tools/call', {
      name: 'progress',
      arguments: {},
      _meta: { progressToken: 'p-10' },
    });
    assert.deepEqual(resultOf(reply).content, [{ type: 'text', text: 'finished' }]);
    const messages = peer.lines.slice(from).map((l) => JSON.parse(l) as Message);
    const progress = messages.filter((m) => m.method === 'notifications/progress');
    assert.deepEqual(
      progress.map((m) => m.params),
      [0, 50, 100].map((p) => ({ progressToken: 'p-10', progress: p, total: 100 })),
    );
    const resultAt = messages.findIndex((m) => m.id === 10);
    assert.ok(
      messages.findLastIndex((m) => m.method === 'notifications/progress') < resultAt,
      'progress before the result',
    );
    for (const m of messages.filter((x) => 'method' in x)) assertValidServerMessage(V2025, m);
  });

  test('notifications/cancelled aborts a running call, and no response is sent for it', async () => {
    const from = peer.lines.length;
    peer.send({
      jsonrpc: '2.0',
      id: 11,
      method: 'tools/call',
      params: { name: 'slow', arguments: { ms: 15_000 }, _meta: { progressToken: 'slow-11' } },
    });
    // Let the call start before cancelling it (a cancel for an unknown id is ignored).
    await slowStarted(from, 'slow-11');
    peer.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 11, reason: 'test' },
    });
    // The aborted handler returns at once (its "mcp request" line is written when it has
    // ended, before any answer would be); a later ping is answered, the cancelled call never is
    // (2025-11-25 cancellation: receivers SHOULD NOT respond to a cancelled request).
    await until(() => requestLogged(peer, 11), {
      timeoutMs: 10_000,
      message: 'the cancelled call 11 never ended (no "mcp request" log line for it)',
    });
    assert.deepEqual(resultOf(await rpc(12, 'ping')), {});
    const answered = peer.lines.slice(from).map((l) => JSON.parse(l) as Message);
    assert.equal(answered.filter((m) => m.id === 11).length, 0);
  });

  test('a cancellation names its request by id as sent: "13" does not cancel 13', async () => {
    const from = peer.lines.length;
    const answer = rpc(13, 'tools/call', {
      name: 'slow',
      arguments: { ms: 600 },
      _meta: { progressToken: 'slow-13' },
    });
    await slowStarted(from, 'slow-13');
    peer.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: '13', reason: 'a different request' },
    });
    // Not aborted: the call runs its full time and is answered (JSON-RPC ids 13 and "13" differ).
    assert.deepEqual(resultOf(await answer).content, [{ type: 'text', text: 'done' }]);
  });

  test('stdin EOF: pending requests are answered, then the process exits 0', async () => {
    const answer = rpc('last', 'tools/call', { name: 'slow', arguments: { ms: 300 } });
    peer.end();
    assert.deepEqual(resultOf(await answer).content, [{ type: 'text', text: 'done' }]);
    assert.equal(await exitWithin(peer, 15_000), 0);
  });

  test('every byte on stdout was a JSON-RPC message valid for its revision', () => {
    assert.ok(peer.lines.length > 10);
    for (const line of peer.lines) {
      const message = JSON.parse(line) as Message;
      assert.equal(message.jsonrpc, '2.0', line);
      const request =
        typeof message.id === 'string' || typeof message.id === 'number' ? asked.get(message.id) : undefined;
      assertValidServerMessage(request?.revision ?? V2025, message, request?.method);
    }
  });
});

/** Waits for the process to exit, up to `ms`; resolves with the exit code or 'running'. */
async function exitWithin(proc: SpawnedProcess, ms: number): Promise<number | null | 'running'> {
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    proc.exited,
    new Promise<'running'>((r) => {
      timer = setTimeout(() => r('running'), ms);
    }),
  ]);
  clearTimeout(timer);
  return code;
}

describe('stdio: a second process', () => {
  before(async () => {
    const reply = await second.request({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: V2025,
        capabilities: { elicitation: {} },
        clientInfo: { name: 't', version: '1' },
      },
    });
    assert.ok('result' in reply, JSON.stringify(reply));
    second.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  });

  test('a plugin writing to stdout while it registers does not reach stdout', async () => {
    for (const line of second.lines) assert.doesNotThrow(() => JSON.parse(line), `not JSON: ${line}`);
    await stderrIncludes(second, 'noise-at-register');
  });

  test('stdin EOF while a call awaits the client (elicitation) still exits promptly', async () => {
    const from = second.lines.length;
    second.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask_name', arguments: {} } });
    const ask = await second.waitFor((m) => m.method === 'elicitation/create', from);
    assertValidServerMessage(V2025, ask);
    second.end();
    assert.equal(await exitWithin(second, 5_000), 0);
  });
});

describe('stdio: start-up', () => {
  test('a bad setting stops start-up with exit code 2 before anything listens, naming variable, value and range', async () => {
    const code = await badSetting.exited;
    assert.equal(code, 2);
    const stderr = badSetting.stderr();
    assert.match(stderr, /MCP_HTTP_PORT="abc"/);
    assert.match(stderr, /integer from 0 to 65535/);
    assert.doesNotMatch(stderr, /listening/);
  });
});
