/**
 * The read side of a stdio upstream's connection, in place of the official client's own buffer.
 * That one throws on a line over 10 MiB, and the client then closes the connection: one
 * caller's big result failed every call in flight on the shared upstream and restarted the
 * process (losing what it kept in memory). Here a line over MCP_PROXY_MAX_MESSAGE_BYTES is
 * skipped as it arrives (never held whole) and, when it is a response, answered in its place
 * with a JSON-RPC error for its id, so that only that call fails. A response that is nested
 * deeper than the proxy reads, or not of the protocol's shape, is answered the same way.
 */
import { ErrorCode } from '@mcp-toolkit/server';
import { deserializeMessage, type JSONRPCMessage } from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { depthOf } from './lists.ts';

/** How deep a message from the upstream may nest (its JSON levels). */
export const MAX_MESSAGE_DEPTH = 4096;
/** The bytes kept of each end of a line that is being skipped: where its id is. */
const KEPT = 512;

/** The `data.reason` of an answer the proxy put in place of one it could not read. */
export const UNREADABLE = 'mcp-toolkit-proxy/unreadable-answer';

const NEWLINE = 0x0a;

/**
 * A request id at the end of a JSON-RPC line (`..., "id": 7}`): the official SDKs write a
 * response's `id` after its `result`.
 */
const ID_AT_END = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")\s*\}\s*$/;
/** Or at its start (`{"jsonrpc":"2.0","id":7,...`). */
const ID_AT_START = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")/;

function idIn(head: string, tail: string): string | number | undefined {
  const m = ID_AT_END.exec(tail) ?? ID_AT_START.exec(head);
  if (m === null) return undefined;
  try {
    return JSON.parse(m[1] as string) as string | number;
  } catch {
    return undefined;
  }
}

function unreadable(id: string | number, message: string): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: { code: ErrorCode.InternalError, message, data: { reason: UNREADABLE } },
  } as JSONRPCMessage;
}

/**
 * The official client's ReadBuffer interface (`append`, `readMessage`, `clear`), with a
 * per-line limit instead of a fatal one, and without copying the pending bytes on each chunk.
 *
 * @example
 * useLineBuffer(transport, 16 * 1024 * 1024, (why) => logger.warn(why));
 */
export class LineBuffer {
  readonly #max: number;
  readonly #dropped: (what: string) => void;
  /** The pending (incomplete) line, as the chunks it came in. */
  #chunks: Buffer[] = [];
  #pending = 0;
  /** While a line over the limit is skipped: its first and last bytes. */
  #skipping: { head: Buffer; tail: Buffer; bytes: number } | undefined;
  /** Complete lines (or answers put in place of skipped ones), oldest first. */
  readonly #ready: (Buffer | JSONRPCMessage)[] = [];

  constructor(maxBytes: number, dropped: (what: string) => void) {
    this.#max = maxBytes;
    this.#dropped = dropped;
  }

  append(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      this.#take(chunk.subarray(start, nl));
      this.#endLine();
      start = nl + 1;
    }
    if (start < chunk.length) this.#take(chunk.subarray(start));
  }

  #take(part: Buffer): void {
    if (part.length === 0) return;
    const s = this.#skipping;
    if (s !== undefined) {
      s.bytes += part.length;
      s.tail = Buffer.concat([s.tail, part]).subarray(-KEPT);
      return;
    }
    if (this.#pending + part.length <= this.#max) {
      this.#chunks.push(part);
      this.#pending += part.length;
      return;
    }
    // Over the limit: keep only both ends from here on.
    const sofar = Buffer.concat([...this.#chunks, part]);
    this.#skipping = { head: sofar.subarray(0, KEPT), tail: sofar.subarray(-KEPT), bytes: sofar.length };
    this.#chunks = [];
    this.#pending = 0;
  }

  #endLine(): void {
    const s = this.#skipping;
    if (s !== undefined) {
      this.#skipping = undefined;
      const id = idIn(s.head.toString('utf8'), s.tail.toString('utf8'));
      const what = `a message of ${s.bytes} bytes or more, over the ${this.#max} the proxy reads (MCP_PROXY_MAX_MESSAGE_BYTES)`;
      this.#dropped(id === undefined ? what : `${what}, the answer to request ${JSON.stringify(id)}`);
      if (id !== undefined) {
        this.#ready.push(
          unreadable(
            id,
            `The upstream MCP server's answer was ${s.bytes} bytes or more, over the ${this.#max} the proxy reads from it (MCP_PROXY_MAX_MESSAGE_BYTES); ask for less.`,
          ),
        );
      }
      return;
    }
    if (this.#chunks.length === 0) return;
    const line = this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks);
    this.#chunks = [];
    this.#pending = 0;
    this.#ready.push(line);
  }

  readMessage(): JSONRPCMessage | null {
    for (;;) {
      const next = this.#ready.shift();
      if (next === undefined) return null;
      if (!Buffer.isBuffer(next)) return next;
      const text = next.toString('utf8').replace(/\r$/, '');
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        continue; // not JSON: skipped, as the official client does (a stray log line)
      }
      const id = (value as { id?: unknown } | null)?.id;
      const answerable = typeof id === 'string' || typeof id === 'number';
      if (depthOf(value, MAX_MESSAGE_DEPTH) > MAX_MESSAGE_DEPTH) {
        this.#dropped(`a message nested deeper than ${MAX_MESSAGE_DEPTH} levels`);
        if (answerable && !('method' in (value as object))) {
          return unreadable(
            id,
            `The upstream MCP server's answer is nested deeper than the ${MAX_MESSAGE_DEPTH} levels the proxy reads.`,
          );
        }
        continue;
      }
      try {
        return deserializeMessage(text);
      } catch (err) {
        this.#dropped(`a message that is not JSON-RPC: ${(err as Error).message.slice(0, 200)}`);
        if (answerable && !('method' in (value as object))) {
          return unreadable(id, "The upstream MCP server's answer is not a valid JSON-RPC response.");
        }
      }
    }
  }

  clear(): void {
    this.#chunks = [];
    this.#pending = 0;
    this.#skipping = undefined;
    this.#ready.length = 0;
  }
}

/**
 * Puts a LineBuffer in the official stdio transport's place. The transport keeps its buffer in
 * a private field; a version of the client without it fails here, at start-up, not mid-call.
 */
export function useLineBuffer(
  transport: StdioClientTransport,
  maxBytes: number,
  dropped: (what: string) => void,
): void {
  const holder = transport as unknown as { _readBuffer?: { append?: unknown } };
  if (typeof holder._readBuffer?.append !== 'function') {
    throw new Error('the official stdio client transport has no read buffer to replace (an unknown version)');
  }
  (holder as { _readBuffer: unknown })._readBuffer = new LineBuffer(maxBytes, dropped);
}
