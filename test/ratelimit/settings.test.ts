import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { rateLimitSettingsShape } from '../../src/ratelimit/settings.ts';

const schema = z.object(rateLimitSettingsShape);

describe('rate-limit settings', () => {
  it('defaults to no limit, burst from rps, fail open, memory store', () => {
    const parsed = schema.parse({});
    assert.equal(parsed.MCP_RATE_LIMIT_RPS, 0);
    assert.equal(parsed.MCP_RATE_LIMIT_BURST, 0);
    assert.equal(parsed.MCP_RATE_LIMIT_FAIL, 'open');
    assert.equal(parsed.MCP_REDIS_URL, undefined);
  });

  it('reads the values', () => {
    assert.deepEqual(
      schema.parse({
        MCP_RATE_LIMIT_RPS: '25',
        MCP_RATE_LIMIT_BURST: '100',
        MCP_RATE_LIMIT_FAIL: 'closed',
        MCP_REDIS_URL: 'rediss://user:pw@cache.internal:6380/2',
      }),
      {
        MCP_RATE_LIMIT_RPS: 25,
        MCP_RATE_LIMIT_BURST: 100,
        MCP_RATE_LIMIT_FAIL: 'closed',
        MCP_REDIS_URL: 'rediss://user:pw@cache.internal:6380/2',
      },
    );
    assert.equal(schema.parse({ MCP_REDIS_URL: '' }).MCP_REDIS_URL, undefined);
  });

  it('names what each setting accepts', () => {
    const cases = [
      ['MCP_RATE_LIMIT_RPS', '-1', /integer from 0/],
      ['MCP_RATE_LIMIT_BURST', 'many', /integer from 0/],
      ['MCP_RATE_LIMIT_FAIL', 'maybe', /open, closed/],
      [
        'MCP_REDIS_URL',
        'http://cache:6379',
        /expected redis:\/\/host:port, rediss:\/\/\.\.\., redis\+sentinel:\/\//,
      ],
    ] as const;
    for (const [name, value, message] of cases) {
      const result = schema.safeParse({ [name]: value });
      assert.equal(result.success, false, name);
      assert.equal(result.error?.issues[0]?.path[0], name);
      assert.match(result.error?.issues[0]?.message ?? '', message);
    }
  });

  it('describes every setting', () => {
    for (const [name, field] of Object.entries(rateLimitSettingsShape)) {
      assert.ok((field.description ?? '').length > 20, name);
    }
  });
});
