import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InternalCode, ToolkitError } from '../../src/base/errors.ts';
import { bucketOf, defaultBurst, fits, refilled, waitMs, whole } from '../../src/ratelimit/bucket.ts';

describe('bucketOf', () => {
  it('keeps the limit as given, with the time of a full refill', () => {
    assert.deepEqual(bucketOf({ rps: 10, burst: 100 }), { rps: 10, burst: 100, fullMs: 10_000 });
    // A bucket smaller than one second's worth is a bucket like any other.
    assert.deepEqual(bucketOf({ rps: 10, burst: 3 }), { rps: 10, burst: 3, fullMs: 300 });
    assert.deepEqual(bucketOf({ rps: 3, burst: 1 }), { rps: 3, burst: 1, fullMs: 334 });
    assert.deepEqual(bucketOf({ rps: 0.25, burst: 2 }), { rps: 0.25, burst: 2, fullMs: 8000 });
  });

  it('defaults the burst to two seconds of rps, at least 1', () => {
    assert.equal(defaultBurst(10), 20);
    assert.equal(defaultBurst(2.5), 5);
    assert.equal(defaultBurst(0.2), 1);
    assert.equal(bucketOf({ rps: 7 }).burst, 14);
    assert.equal(bucketOf({ rps: 7, burst: 0 }).burst, 14);
    assert.equal(bucketOf({ rps: 0.001 }).burst, 1);
  });

  it('accepts the bounds', () => {
    assert.equal(bucketOf({ rps: 0.001, burst: 10_000_000 }).fullMs, 10_000_000_000_000);
    assert.equal(bucketOf({ rps: 1_000_000, burst: 1 }).fullMs, 1);
  });

  it('refuses bad limits with the code it is given', () => {
    for (const limit of [
      { rps: 0 },
      { rps: -1 },
      { rps: 0.0005 },
      { rps: 1_000_001 },
      { rps: Number.NaN },
      { rps: Number.POSITIVE_INFINITY },
      { rps: '5' as unknown as number },
      { rps: 1, burst: 1.5 },
      { rps: 1, burst: -2 },
      { rps: 1, burst: 10_000_001 },
    ]) {
      assert.throws(
        () => bucketOf(limit, InternalCode.InvalidDefinition),
        (error) => error instanceof ToolkitError && error.code === InternalCode.InvalidDefinition,
        JSON.stringify(limit),
      );
    }
    assert.throws(
      () => bucketOf({ rps: 0 }),
      (error) => error instanceof ToolkitError && error.code === InternalCode.InvalidSetting,
    );
  });
});

describe('bucket arithmetic', () => {
  const bucket = bucketOf({ rps: 2, burst: 4 });

  it('refills at rps per second, up to the burst', () => {
    assert.equal(refilled(bucket, 0, 1000, 1000), 0);
    assert.equal(refilled(bucket, 0, 1000, 1250), 0.5);
    assert.equal(refilled(bucket, 1, 1000, 2000), 3);
    assert.equal(refilled(bucket, 1, 1000, 60_000), 4);
  });

  it('neither refills nor drains when the clock went back', () => {
    assert.equal(refilled(bucket, 1.5, 5000, 4000), 1.5);
  });

  it('treats a float residue as the amount it stands for', () => {
    let tokens = 0;
    for (let i = 0; i < 10; i += 1) tokens += 0.1;
    assert.notEqual(tokens, 1);
    assert.equal(fits(tokens, 1), true);
    assert.equal(whole(tokens), 1);
    assert.equal(fits(0.999, 1), false);
    assert.equal(whole(0.999), 0);
    assert.equal(whole(-1e-12), 0);
    // 0.3 missing at 3 per second is 100 ms, not the 101 a residue would round up to.
    assert.equal((1 - 0.7) * 1000, 300.00000000000006);
    assert.equal(waitMs(3, 1 - 0.7), 100);
  });

  it('names the wait until the missing tokens exist, at least 1 ms', () => {
    assert.equal(waitMs(2, 1), 500);
    assert.equal(waitMs(3, 1), 334);
    assert.equal(waitMs(0.2, 6), 30_000);
    assert.equal(waitMs(1_000_000, 0.0001), 1);
  });
});
