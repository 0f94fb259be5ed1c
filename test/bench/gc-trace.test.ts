/**
 * bench/harness/gc-trace.ts reads V8's own account of each collection (`--trace-gc-nvp`): here
 * from a real node process that allocates a known amount and keeps part of it, so the format
 * read is the one this Node prints. No timed assertion: only that collections are counted and
 * the bytes are of the right order.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { GC_TRACE_FLAG, gcPerRequest, gcTrace } from '../../bench/harness/gc-trace.ts';

// 200,000 "requests" of about 1 KB each (an array of 100 small numbers), every 1,000th kept
// for good (promoted), and one full collection asked for at the end.
const PROGRAM = `
const kept = [];
for (let i = 0; i < 200000; i++) {
  const garbage = new Array(100).fill(i);
  if (i % 1000 === 0) kept.push(garbage);
}
globalThis.gc();
console.error(kept.length);
`;

test('gcTrace counts the collections, bytes allocated and promoted of a real node process', async () => {
  const child = spawn(process.execPath, [GC_TRACE_FLAG, '--expose-gc', '-e', PROGRAM], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const trace = gcTrace(child.stdout);
  const before = trace.read();
  // 'close': stdout has been read to its end (an 'exit' may come before the last lines).
  const [code] = await once(child, 'close');
  assert.equal(code, 0);
  const totals = trace.read();
  assert.ok(totals.scavenges > 0, JSON.stringify(totals));
  assert.ok(totals.fullCollections >= 1, JSON.stringify(totals));
  const perRequest = gcPerRequest(before, totals, 200_000);
  // At least the arrays' elements (100 × 8 bytes) per round, less than ten times that.
  assert.ok(perRequest.allocatedBytes > 800 && perRequest.allocatedBytes < 8000, JSON.stringify(perRequest));
  assert.ok(perRequest.promotedBytes > 0, JSON.stringify(perRequest));
  assert.ok(perRequest.pauseUs >= 0 && perRequest.requestsPerScavenge !== null, JSON.stringify(perRequest));
});

test('gcPerRequest of a window without a collection is zero, with no scavenge interval', () => {
  const totals = { scavenges: 3, fullCollections: 0, pauseMs: 1, allocatedBytes: 100, promotedBytes: 0 };
  assert.deepEqual(gcPerRequest(totals, totals, 10), {
    allocatedBytes: 0,
    promotedBytes: 0,
    pauseUs: 0,
    requestsPerScavenge: null,
    fullCollections: 0,
  });
});
