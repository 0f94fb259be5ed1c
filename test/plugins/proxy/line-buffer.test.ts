/**
 * The stdio upstream's line buffer (plugins/proxy/line-buffer.ts): lines split across chunks
 * are read whole; a line over the limit is skipped as it arrives and, when its id can be
 * found at either end, answered with an error for that id; one without an id is dropped; a
 * response nested too deep or not of JSON-RPC's shape gets an error for its id; lines that are
 * not JSON are skipped, as the official client skips them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LineBuffer, MAX_MESSAGE_DEPTH, UNREADABLE } from '../../../plugins/proxy/line-buffer.ts';

function drain(buffer: LineBuffer): unknown[] {
  const out: unknown[] = [];
  for (let m = buffer.readMessage(); m !== null; m = buffer.readMessage()) out.push(m);
  return out;
}

const feed = (buffer: LineBuffer, text: string, size = 7) => {
  for (let i = 0; i < text.length; i += size) buffer.append(Buffer.from(text.slice(i, i + size)));
};

describe('the stdio upstream line buffer', () => {
  test('lines split over chunks are read whole, in order; non-JSON lines are skipped', () => {
    const b = new LineBuffer(1024, () => assert.fail('nothing dropped'));
    const one = { jsonrpc: '2.0', id: 1, result: { a: 'x'.repeat(50) } };
    const two = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'é' } };
    feed(b, `${JSON.stringify(one)}\nnot json\n${JSON.stringify(two)}\r\n`);
    assert.deepEqual(drain(b), [one, two]);
  });

  test('a line over the limit is answered with an error for its id, wherever the id is', () => {
    const dropped: string[] = [];
    const b = new LineBuffer(1024, (what) => dropped.push(what));
    // The official SDKs write `result` first and `id` last; others write `id` first.
    feed(b, `${JSON.stringify({ result: { text: 'x'.repeat(5000) }, jsonrpc: '2.0', id: 7 })}\n`, 300);
    feed(b, `${JSON.stringify({ jsonrpc: '2.0', id: 'r-8', result: { text: 'y'.repeat(5000) } })}\n`, 300);
    feed(
      b,
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'z'.repeat(5000) } })}\n`,
    );
    feed(b, `${JSON.stringify({ jsonrpc: '2.0', id: 9, result: {} })}\n`);
    const out = drain(b) as { id: unknown; error?: { message: string; data: { reason: string } } }[];
    assert.deepEqual(
      out.map((m) => m.id),
      [7, 'r-8', 9],
    );
    assert.match(out[0]?.error?.message ?? '', /answer was 50\d\d bytes or more, over the 1024/);
    assert.equal(out[1]?.error?.data.reason, UNREADABLE);
    assert.equal(out[2]?.error, undefined);
    assert.equal(dropped.length, 3);
  });

  test('a response nested too deep, or not JSON-RPC, is answered with an error for its id', () => {
    const b = new LineBuffer(1024 * 1024, () => {});
    let deep: unknown = 1;
    for (let i = 0; i < MAX_MESSAGE_DEPTH + 10; i++) deep = [deep];
    b.append(Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 3, result: { deep } })}\n`));
    b.append(Buffer.from(`${JSON.stringify({ jsonrpc: '1.0', id: 4, result: {} })}\n`));
    const out = drain(b) as { id: number; error: { message: string } }[];
    assert.deepEqual(
      out.map((m) => [m.id, /nested deeper|not a valid JSON-RPC/.test(m.error.message)]),
      [
        [3, true],
        [4, true],
      ],
    );
  });
});
