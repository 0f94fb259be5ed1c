import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bucketOf } from '../../src/ratelimit/bucket.ts';
import { createMemoryBuckets } from '../../src/ratelimit/memory-store.ts';

describe('memory buckets', () => {
  // 10 a second, 2 at once: a bucket is full again 200 ms after its last take.
  const bucket = bucketOf({ rps: 10, burst: 2 });

  it('drops buckets that are full again once the map has doubled since the last sweep', () => {
    const buckets = createMemoryBuckets();
    for (let i = 0; i < 1000; i += 1) buckets.take(bucket, `early-${i}`, 1, 0);
    assert.equal(buckets.size, 1000);
    // 300 ms later every early bucket is full again; the next 1000 inserts sweep them out.
    for (let i = 0; i < 1000; i += 1) buckets.take(bucket, `late-${i}`, 1, 300);
    assert.equal(buckets.size, 1000);
  });

  it('keeps buckets that are not full yet', () => {
    const buckets = createMemoryBuckets();
    for (let i = 0; i < 1000; i += 1) buckets.take(bucket, `early-${i}`, 2, 0);
    // 100 ms later the early buckets hold 1 token of 2: they must stay.
    for (let i = 0; i < 1000; i += 1) buckets.take(bucket, `late-${i}`, 1, 100);
    assert.equal(buckets.size, 2000);
    assert.deepEqual(buckets.take(bucket, 'early-0', 1, 100), { allowed: true, remaining: 0 });
  });

  it('sweeps on the first insert after 10 s, however few inserts there were', () => {
    const buckets = createMemoryBuckets();
    for (let i = 0; i < 10; i += 1) buckets.take(bucket, `early-${i}`, 1, 0);
    buckets.take(bucket, 'late', 1, 9_999);
    assert.equal(buckets.size, 11);
    buckets.take(bucket, 'later', 1, 10_000);
    assert.equal(buckets.size, 2, 'only the two recent buckets are left');
  });

  it('answers for a swept bucket as for a full one', () => {
    const buckets = createMemoryBuckets();
    buckets.take(bucket, 'alice', 2, 0);
    buckets.take(bucket, 'bob', 1, 20_000);
    assert.equal(buckets.size, 1);
    assert.deepEqual(buckets.take(bucket, 'alice', 2, 20_000), { allowed: true, remaining: 0 });
  });
});
