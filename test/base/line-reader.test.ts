/** The newline-delimited JSON framing shared by the stdio transport and the test kit's links. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLineReader } from '../../src/base/line-reader.ts';

function read(chunks: string[], maxLineBytes?: number): { lines: string[]; oversize: number } {
  const lines: string[] = [];
  let oversize = 0;
  const reader = createLineReader({
    onLine: (l) => lines.push(l),
    onOversize: () => oversize++,
    ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
  });
  for (const chunk of chunks) reader.push(chunk);
  reader.end();
  return { lines, oversize };
}

test('lines split across chunks are joined; CRLF and blank lines are handled', () => {
  assert.deepEqual(read(['{"a":', '1}\r\n\n  \n{"b"', ':2}\n']).lines, ['{"a":1}', '{"b":2}']);
});

test('a last line without a newline is delivered at the end', () => {
  assert.deepEqual(read(['{"a":1}\n{"b":2}']).lines, ['{"a":1}', '{"b":2}']);
});

test('a line over the limit is reported once and dropped, even while it streams in; the next line is read', () => {
  const long = 'x'.repeat(40);
  const out = read([`${long.slice(0, 25)}`, `${long.slice(25)}`, 'x'.repeat(30), '\n{"ok":1}\n'], 16);
  assert.deepEqual(out, { lines: ['{"ok":1}'], oversize: 1 });
  // Counted in UTF-8 bytes: 6 characters of 3 bytes each are 18 bytes.
  assert.deepEqual(read(['€€€€€€\n'], 16), { lines: [], oversize: 1 });
  assert.deepEqual(read(['€€€€€\n'], 16), { lines: ['€€€€€'], oversize: 0 });
});
