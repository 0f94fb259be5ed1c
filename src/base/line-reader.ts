/**
 * Newline-delimited JSON framing (the MCP stdio transport: one message per line, no embedded
 * newlines), read from text chunks as they arrive: the stdio transport reads its stdin with it,
 * and the test kit reads a server's stdout with it (src/testing/client/link.ts). A line longer than
 * `maxLineBytes` is dropped as it streams in (never buffered whole) and reported once; blank
 * lines are skipped. (The hub's relay between replicas is Redis pub/sub, one message per
 * publish: no framing to share.)
 */

export interface LineReaderOptions {
  /** A complete line, without its newline (and a `\r` before it). */
  onLine(line: string): void;
  /** Longest line accepted, in UTF-8 bytes; default: no limit. */
  maxLineBytes?: number;
  /** Told once for each line over `maxLineBytes` (the line itself is dropped). */
  onOversize?(): void;
}

export interface LineReader {
  /** Takes the next chunk of text. */
  push(chunk: string): void;
  /** The stream ended: a last line without a newline is delivered as it is. */
  end(): void;
}

/**
 * @example
 * const reader = createLineReader({ maxLineBytes: 1_048_576, onLine: (l) => handle(JSON.parse(l)), onOversize: tooLarge });
 * input.on('data', (chunk: string) => reader.push(chunk)).on('end', () => reader.end());
 */
export function createLineReader(options: LineReaderOptions): LineReader {
  const max = options.maxLineBytes ?? Number.POSITIVE_INFINITY;
  const { onLine } = options;
  // A UTF-16 code unit is at most 3 UTF-8 bytes: most lines need no byte count.
  const tooLong = (text: string) => text.length * 3 > max && Buffer.byteLength(text) > max;
  const deliver = (line: string) => {
    if (line.trim() !== '') onLine(line);
  };
  let buffer = '';
  let discarding = false;
  return {
    push(chunk) {
      let start = 0;
      for (let nl = chunk.indexOf('\n', start); nl !== -1; nl = chunk.indexOf('\n', start)) {
        const piece = chunk.slice(start, nl);
        start = nl + 1;
        if (discarding) {
          discarding = false;
          buffer = '';
          continue;
        }
        const line = buffer + piece;
        buffer = '';
        if (tooLong(line)) options.onOversize?.();
        else deliver(line.endsWith('\r') ? line.slice(0, -1) : line);
      }
      if (discarding) return;
      buffer += chunk.slice(start);
      if (tooLong(buffer)) {
        // Too long: reported once, the rest of this line dropped, and on with the next one.
        buffer = '';
        discarding = true;
        options.onOversize?.();
      }
    },
    end() {
      if (!discarding) deliver(buffer);
      buffer = '';
    },
  };
}
