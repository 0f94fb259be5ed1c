/**
 * The SDK's trace and span ids, cut from a pool of random hex (src/telemetry/id-generator.ts):
 * the W3C Trace Context forms (32 and 16 lowercase hex characters, never all zeros), and no
 * id repeated across many draws of the pool.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PooledIdGenerator } from '../../src/telemetry/id-generator.ts';

test('trace and span ids: lowercase hex of 16 and 8 bytes, none repeated across pool refills', () => {
  const ids = new PooledIdGenerator();
  const seen = new Set<string>();
  // 4,096 bytes a pool: these draws refill it dozens of times, both kinds interleaved.
  for (let i = 0; i < 5_000; i++) {
    const traceId = ids.generateTraceId();
    const spanId = ids.generateSpanId();
    assert.match(traceId, /^[0-9a-f]{32}$/);
    assert.match(spanId, /^[0-9a-f]{16}$/);
    assert.notEqual(traceId, '0'.repeat(32));
    assert.notEqual(spanId, '0'.repeat(16));
    seen.add(traceId);
    seen.add(spanId);
  }
  assert.equal(seen.size, 10_000);
});

test('two generators draw independently', () => {
  const a = new PooledIdGenerator();
  const b = new PooledIdGenerator();
  assert.notEqual(a.generateTraceId(), b.generateTraceId());
});
