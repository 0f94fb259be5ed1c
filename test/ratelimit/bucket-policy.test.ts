import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InternalCode, ToolkitError } from '../../src/protocol/errors.ts';
import { bucketPolicy, defaultBurst, msUntilAffordable } from '../../src/ratelimit/bucket-policy.ts';

describe('bucketPolicy', () => {
  it('sizes a steady window of rps per second and a pool for the rest of the burst', () => {
    assert.deepEqual(bucketPolicy({ rps: 10 }), {
      rps: 10,
      burst: 20,
      steadyPoints: 10,
      steadySeconds: 1,
      poolPoints: 10,
      poolSeconds: 10,
    });
    assert.deepEqual(bucketPolicy({ rps: 10, burst: 100 }), {
      rps: 10,
      burst: 100,
      steadyPoints: 10,
      steadySeconds: 1,
      poolPoints: 90,
      poolSeconds: 90,
    });
  });

  it('keeps the pool from adding more than 10% of rps over the long run', () => {
    for (const [rps, burst] of [
      [1, 2],
      [3, 50],
      [10, 0],
      [250, 260],
      [0.5, 4],
      [1_000_000, 0],
    ] as const) {
      const p = bucketPolicy({ rps, burst });
      if (p.poolPoints > 0) assert.ok(p.poolPoints / p.poolSeconds <= 0.1 * rps + 1e-9, JSON.stringify(p));
      assert.equal(p.steadyPoints + p.poolPoints, p.burst);
      assert.ok(
        Number.isInteger(p.steadySeconds) && Number.isInteger(p.poolSeconds),
        'whole seconds for Redis EX',
      );
    }
  });

  it('stretches the steady window below one call per second', () => {
    const p = bucketPolicy({ rps: 0.25 });
    assert.equal(p.steadyPoints, 1);
    assert.equal(p.steadySeconds, 4);
    assert.equal(p.burst, 1);
    assert.equal(p.poolPoints, 0);
  });

  it('raises a burst below one steady window to that window', () => {
    assert.equal(bucketPolicy({ rps: 10, burst: 3 }).burst, 10);
    assert.equal(bucketPolicy({ rps: 10, burst: 3 }).poolPoints, 0);
  });

  it('defaults the burst to two seconds of rps, at least 1', () => {
    assert.equal(defaultBurst(10), 20);
    assert.equal(defaultBurst(0.2), 1);
    assert.equal(bucketPolicy({ rps: 7, burst: 0 }).burst, 14);
  });

  it('refuses bad limits with the code it is given', () => {
    for (const limit of [
      { rps: 0 },
      { rps: -1 },
      { rps: Number.NaN },
      { rps: 1, burst: 1.5 },
      { rps: 1, burst: -2 },
    ]) {
      assert.throws(
        () => bucketPolicy(limit, InternalCode.InvalidDefinition),
        (error) => error instanceof ToolkitError && error.code === InternalCode.InvalidDefinition,
      );
    }
    assert.throws(
      () => bucketPolicy({ rps: 0 }),
      (error) => error instanceof ToolkitError && error.code === InternalCode.InvalidSetting,
    );
  });
});

describe('msUntilAffordable', () => {
  const policy = bucketPolicy({ rps: 1, burst: 3 }); // steady 1 per 1 s, pool 2 per 20 s

  it('answers the steady reset when it frees enough', () => {
    assert.equal(
      msUntilAffordable(policy, 1, { steadyFree: 0, steadyResetMs: 400, poolFree: 0, poolResetMs: 9000 }),
      400,
    );
    assert.equal(
      msUntilAffordable(policy, 2, { steadyFree: 0, steadyResetMs: 400, poolFree: 1, poolResetMs: 9000 }),
      400,
    );
  });

  it('answers the pool reset when only the pool frees enough', () => {
    assert.equal(
      msUntilAffordable(policy, 2, { steadyFree: 0, steadyResetMs: 400, poolFree: 0, poolResetMs: 9000 }),
      9000,
    );
    assert.equal(
      msUntilAffordable(policy, 3, { steadyFree: 0, steadyResetMs: 9500, poolFree: 0, poolResetMs: 9000 }),
      9500,
    );
  });

  it('never answers less than 1 ms', () => {
    assert.equal(
      msUntilAffordable(policy, 1, { steadyFree: 0, steadyResetMs: 0.2, poolFree: 0, poolResetMs: 0 }),
      1,
    );
  });
});
