/**
 * A drain that runs out of time answers what it cuts off, with a real process and SIGTERM:
 * calls whose handlers never finish (and ignore their abort signal) are stopped shortly before
 * MCP_SHUTDOWN_TIMEOUT_MS runs out and answered with a JSON-RPC error -32039 (HTTP 503 while the
 * reply is still JSON, the last event of an SSE stream already open), a plugin route's handler
 * with a 503, and the process exits 0. Without the cut-off, the connections were closed under
 * them: no HTTP answer at all. The Fastify plugin's `app.close()` drains the same way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { pino } from 'pino';
import { ErrorCode } from '../../src/base/errors.ts';
import mcpToolkit from '../../src/fastify.ts';
import stalling from '../fixtures/stalling-plugin.ts';
import { type SpawnedHttpServer, spawnHttpServer } from '../helpers/spawn-server.ts';
import { until } from '../helpers/until.ts';

const V2026 = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': V2026,
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Answer {
  status: number;
  body: string;
}

/** Posts and reads the whole answer; a connection closed without one rejects. */
async function post(url: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.text() };
}

/** The JSON-RPC messages of an SSE body, in order. */
function events(body: string): Record<string, unknown>[] {
  // The priming event's data is empty (2025-11-25 transports, resumability): not a message.
  return body
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice('data:'.length).trim())
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data) as Record<string, unknown>);
}

describe('SIGTERM with calls that never finish', () => {
  let server: SpawnedHttpServer;
  before(async () => {
    server = await spawnHttpServer({
      MCP_PLUGINS: './test/fixtures/stalling-plugin.ts',
      MCP_SHUTDOWN_TIMEOUT_MS: '4000',
      MCP_LOG_LEVEL: 'info',
      MCP_LOG_FORMAT: 'json',
    });
  });
  after(() => server?.stop());

  test('each is answered with 503 / -32039 before the connections close, and the process exits 0', async () => {
    // A 2025 session for the streaming call.
    const opened = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'drain', version: '1' },
        },
      }),
    });
    const session = opened.headers.get('mcp-session-id') ?? '';
    await opened.text();
    assert.ok(session, 'a session id');

    const json = post(
      server.url,
      {
        jsonrpc: '2.0',
        id: 'j',
        method: 'tools/call',
        params: { name: 'stall', arguments: {}, _meta: ENVELOPE },
      },
      {
        accept: 'application/json',
        'mcp-protocol-version': V2026,
        'mcp-method': 'tools/call',
        'mcp-name': 'stall',
      },
    );
    const streamed = post(
      server.url,
      {
        jsonrpc: '2.0',
        id: 's',
        method: 'tools/call',
        params: { name: 'stall_streaming', arguments: {}, _meta: { progressToken: 'p' } },
      },
      {
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
    );
    const route = post(new URL('/hooks/stall', server.url).href, { event: 'x' }, {});
    // Whatever happens, no promise is left rejecting unobserved.
    for (const p of [json, streamed, route]) p.catch(() => {});
    await until(() => (server.stderr().match(/"msg":"stalling"/g) ?? []).length >= 3, {
      timeoutMs: 20_000,
      message: 'the three handlers never started',
    });

    server.child.kill('SIGTERM');
    const [j, s, r] = await Promise.all([json, streamed, route]);

    assert.equal(j.status, 503, j.body);
    const jBody = JSON.parse(j.body) as { id: unknown; error: { code: number; message: string } };
    assert.equal(jBody.id, 'j');
    assert.equal(jBody.error.code, ErrorCode.ServiceUnavailable);
    assert.match(jBody.error.message, /shutting down/);

    // The stream was open (progress went out first): its last event is the error.
    assert.equal(s.status, 200);
    const messages = events(s.body);
    assert.equal((messages[0] as { method?: string }).method, 'notifications/progress', s.body);
    const last = messages.at(-1) as { id: unknown; error?: { code: number } };
    assert.equal(last.id, 's', s.body);
    assert.equal(last.error?.code, ErrorCode.ServiceUnavailable);

    assert.equal(r.status, 503, r.body);
    assert.equal(
      (JSON.parse(r.body) as { error: { code: number } }).error.code,
      ErrorCode.ServiceUnavailable,
    );

    assert.equal(await server.exited, 0);
    assert.match(server.stderr(), /stopped and answered with 503/);
  });
});

describe("the Fastify plugin's app.close() with calls that never finish", () => {
  test('a 2026 call, a 2025 session call and a plugin route are each answered with 503 / -32039 before the app closes', async () => {
    const app = Fastify({ logger: false });
    const lines: string[] = [];
    await app.register(mcpToolkit, {
      plugins: [stalling],
      settings: { MCP_SHUTDOWN_TIMEOUT_MS: 1500 },
      logger: pino({ level: 'info' }, { write: (line: string) => lines.push(line) }),
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    assert.ok(address && typeof address === 'object');
    const base = `http://127.0.0.1:${address.port}`;

    const opened = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'drain', version: '1' },
        },
      }),
    });
    const session = opened.headers.get('mcp-session-id') ?? '';
    await opened.text();
    assert.ok(session, 'a session id');

    const v2026 = post(
      `${base}/mcp`,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'stall', arguments: {}, _meta: ENVELOPE },
      },
      {
        accept: 'application/json',
        'mcp-protocol-version': V2026,
        'mcp-method': 'tools/call',
        'mcp-name': 'stall',
      },
    );
    const v2025 = post(
      `${base}/mcp`,
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'stall', arguments: {} } },
      {
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
    );
    const route = post(`${base}/hooks/stall`, { event: 'x' }, {});
    for (const p of [v2026, v2025, route]) p.catch(() => {});
    await until(() => lines.filter((l) => l.includes('"msg":"stalling"')).length >= 3, {
      timeoutMs: 20_000,
      message: 'the three handlers never started',
    });
    await app.close();
    const [a, b, r] = await Promise.all([v2026, v2025, route]);

    for (const [answer, id] of [
      [a, 7],
      [b, 8],
    ] as const) {
      assert.equal(answer.status, 503, answer.body);
      const body = JSON.parse(answer.body) as { id: unknown; error: { code: number; message: string } };
      assert.equal(body.id, id);
      assert.equal(body.error.code, ErrorCode.ServiceUnavailable);
      assert.match(body.error.message, /shutting down and stopped this request/);
    }
    assert.equal(r.status, 503, r.body);
    assert.equal(
      (JSON.parse(r.body) as { error: { code: number } }).error.code,
      ErrorCode.ServiceUnavailable,
    );
    assert.ok(
      lines.some((l) => l.includes('stopped and answered with 503')),
      'the cut-off is logged as a warning',
    );
  });
});
