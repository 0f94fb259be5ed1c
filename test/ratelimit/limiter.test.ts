import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InternalCode, ToolkitError } from '../../src/base/errors.ts';
import { clientKey, createRateLimiter } from '../../src/ratelimit/limiter.ts';

const logger = { warn() {}, info() {} };

describe('clientKey', () => {
  it('prefers the authenticated identity, then the address', () => {
    assert.equal(clientKey({ clientId: 'key-1' }, '10.0.0.7'), 'id:key-1');
    assert.equal(clientKey(undefined, '10.0.0.7'), 'ip:10.0.0.7');
    assert.equal(clientKey(null, '::1'), 'ip:::1');
    assert.equal(clientKey({ clientId: '' }, '10.0.0.7'), 'ip:10.0.0.7');
    assert.equal(clientKey(), 'ip:unknown');
  });
});

describe('createRateLimiter', () => {
  it('refuses bad options at creation', () => {
    const bad = [
      { rps: -1 },
      { rps: 5, burst: 0.5 },
      { rps: 5, failMode: 'ajar' as 'open' },
      { rps: 5, timeoutMs: 0 },
    ];
    for (const options of bad) {
      assert.throws(
        () => createRateLimiter({ store: 'memory', logger, ...options }),
        (error) => error instanceof ToolkitError && error.code === InternalCode.InvalidSetting,
        JSON.stringify(options),
      );
    }
  });

  it('refuses a bad per-tool limit as an invalid definition', async () => {
    const limiter = createRateLimiter({ rps: 1, store: 'memory', logger });
    await assert.rejects(
      limiter.consumeTool('search', 'id:a', { rps: 0 }),
      (error) => error instanceof ToolkitError && error.code === InternalCode.InvalidDefinition,
    );
  });

  it('treats a batch of no requests as free and a fractional cost as a bug', async () => {
    const limiter = createRateLimiter({ rps: 0.2, burst: 1, store: 'memory', logger });
    assert.equal((await limiter.consume('id:a', 0)).allowed, true);
    assert.equal((await limiter.consume('id:a')).allowed, true);
    assert.equal((await limiter.consume('id:a', 0)).allowed, true);
    await assert.rejects(limiter.consume('id:a', 1.5), RangeError);
  });

  it('is always healthy in memory', () => {
    assert.deepEqual(createRateLimiter({ rps: 1, store: 'memory', logger }).health(), { ok: true });
  });
});
