/**
 * The messages the harness sends and how it checks the answers. Every server under test
 * gets the same `tools/call` of `add` with a = 2, b = 3, so every answer must carry
 * `structuredContent.sum` = 5 (a fast error is not a result).
 */

export const A = 2;
export const B = 3;
export const SUM = A + B;

export const VERSION_2026 = '2026-07-28';
export const VERSION_2025 = '2025-11-25';

/** The 2026 per-request envelope (SEP-2575): protocol version and client capabilities in `_meta`. */
const ENVELOPE_2026 = {
  'io.modelcontextprotocol/protocolVersion': VERSION_2026,
  'io.modelcontextprotocol/clientCapabilities': {},
};

const ACCEPT = 'application/json, text/event-stream';

export interface Request {
  jsonrpc: '2.0';
  id: number | string;
  method: string;
  params: Record<string, unknown>;
}

export function call2026(id: number | string): Request {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'add', arguments: { a: A, b: B }, _meta: ENVELOPE_2026 },
  };
}

export function call2025(id: number | string): Request {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add', arguments: { a: A, b: B } } };
}

export function initialize2025(id: number | string): Request {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: VERSION_2025,
      capabilities: {},
      clientInfo: { name: 'bench', version: '1.0.0' },
    },
  };
}

export const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

/** HTTP headers of a 2026-wire `tools/call` (the `Mcp-Method`/`Mcp-Name` routing headers). */
export function headers2026(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: ACCEPT,
    'mcp-protocol-version': VERSION_2026,
    'mcp-method': 'tools/call',
    'mcp-name': 'add',
    ...extra,
  };
}

/** HTTP headers of a 2025-wire request, inside a session once `sessionId` is known. */
export function headers2025(sessionId?: string): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT };
  if (sessionId !== undefined) {
    h['mcp-session-id'] = sessionId;
    h['mcp-protocol-version'] = VERSION_2025;
  }
  return h;
}

/**
 * The cheap check run on every response under load: the body (JSON or an SSE frame)
 * holds `"sum":5` and no error. The tool's text content carries the sum JSON-escaped
 * (`\"sum\":5`), so this matches `structuredContent` only.
 */
export function bodyHasSum(body: string, sum: number = SUM): boolean {
  return body.includes(`"sum":${sum}`) && !body.includes('"isError":true') && !body.includes('"error":');
}

/** The JSON-RPC messages in a response body: a JSON document, or the `data:` lines of an SSE stream. */
export function messagesIn(body: string, contentType: string): unknown[] {
  if (contentType.includes('text/event-stream')) {
    return body
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:') && line.slice(5).trim() !== '')
      .map((line) => JSON.parse(line.slice(5)) as unknown);
  }
  const parsed = JSON.parse(body) as unknown;
  return Array.isArray(parsed) ? parsed : [parsed];
}

/**
 * The full check run before any load: a JSON-RPC response with the request's id, no error,
 * `structuredContent.sum` equal to the sum and a text block saying the same. Returns why
 * it fails, or undefined when the answer is right.
 */
export function checkCallResult(
  message: unknown,
  id: number | string,
  sum: number = SUM,
): string | undefined {
  const m = message as {
    jsonrpc?: unknown;
    id?: unknown;
    error?: unknown;
    result?: {
      structuredContent?: { sum?: unknown };
      content?: { type?: unknown; text?: unknown }[];
      isError?: unknown;
    };
  };
  if (m.jsonrpc !== '2.0') return 'not a JSON-RPC 2.0 message';
  if (m.id !== id) return `id ${JSON.stringify(m.id)} does not echo ${JSON.stringify(id)}`;
  if (m.error !== undefined) return `error ${JSON.stringify(m.error)}`;
  if (m.result === undefined) return 'no result';
  if (m.result.isError === true) return `isError result ${JSON.stringify(m.result.content)}`;
  if (m.result.structuredContent?.sum !== sum) return `structuredContent.sum is not ${sum}`;
  const text = m.result.content?.find((c) => c.type === 'text')?.text;
  if (typeof text !== 'string' || (JSON.parse(text) as { sum?: unknown }).sum !== sum) {
    return 'the text content does not carry the sum';
  }
  return undefined;
}
