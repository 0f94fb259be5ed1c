/**
 * The set-up shared by the hidden-as-absent tests and their fuzzed variant: a server with API
 * keys for `admin` and `guest`, the echo plugin and items only admin may see
 * (test/fixtures/hidden-items-plugin.ts); a 2025 session opened for a key; one request on
 * either wire; and an answer's error with a name replaced, to compare shapes.
 */
import assert from 'node:assert/strict';
import { buildAppWithAuth } from '../transports/discovery-helpers.ts';
import { type Message, post, req, type TestApp, V2025, V2026 } from '../transports/http-helpers.ts';

export const ADMIN_KEY = 'admin-key-0123456789abcdef';
export const GUEST_KEY = 'guest-key-0123456789abcdef';
export const admin = { 'x-api-key': ADMIN_KEY };
export const guest = { 'x-api-key': GUEST_KEY };

export function buildHiddenApp(): Promise<TestApp> {
  return buildAppWithAuth({
    MCP_AUTH: 'api_key',
    MCP_API_KEYS: `admin:${ADMIN_KEY},guest:${GUEST_KEY}`,
    MCP_PLUGINS: './test/fixtures/echo-plugin.ts,./test/fixtures/hidden-items-plugin.ts',
  });
}

export async function open(t: TestApp, headers: Record<string, string>): Promise<string> {
  const res = await post(
    t.app,
    req(0, 'initialize', {
      protocolVersion: V2025,
      capabilities: {},
      clientInfo: { name: 'x', version: '1' },
    }),
    { headers },
  );
  assert.equal(res.statusCode, 200, res.body);
  const session = String(res.headers['mcp-session-id']);
  const ack = await post(
    t.app,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { session, version: V2025, headers },
  );
  assert.equal(ack.statusCode, 202, ack.body);
  return session;
}

/** One request on the 2025 wire (in `session`) or the 2026 wire; the parsed body and status. */
export async function call(
  t: TestApp,
  wire: '2025' | '2026',
  headers: Record<string, string>,
  method: string,
  params: Message,
  session?: string,
): Promise<{ status: number; body: Message }> {
  const res =
    wire === '2025'
      ? await post(t.app, req(1, method, params), { session, version: V2025, headers })
      : await post(
          t.app,
          req(1, method, {
            ...params,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': V2026,
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          }),
          {
            version: V2026,
            headers: {
              ...headers,
              'mcp-method': method,
              ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
              ...(typeof params.uri === 'string' && method === 'resources/read'
                ? { 'mcp-name': params.uri }
                : {}),
            },
          },
        );
  const text = res.headers['content-type']?.toString().startsWith('text/event-stream')
    ? (res.body.split('\n').find((l) => l.startsWith('data: {') && l.includes('"id":1')) ?? '').slice(6)
    : res.body;
  return { status: res.statusCode, body: JSON.parse(text) as Message };
}

/** The error of an answer with every occurrence of `name` replaced, to compare shapes. */
export function errorShape(answer: { status: number; body: Message }, name: string): unknown {
  assert.ok(answer.body.error, `an error (got ${JSON.stringify(answer.body)})`);
  return {
    status: answer.status,
    error: JSON.parse(JSON.stringify(answer.body.error).replaceAll(name, '<name>')),
  };
}
