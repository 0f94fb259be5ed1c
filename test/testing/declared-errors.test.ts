/**
 * `mcp-toolkit test` holds a tool's declared errors (`_meta["io.github.mcp-toolkit/errors"]`)
 * to their documented shape: what our own servers publish passes, a broken declaration fails.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERRORS_META_KEY } from '../../src/registry/tool-errors.ts';
import { TestClient } from '../../src/testing/client/test-client.ts';
import { declaredErrorProblems } from '../../src/testing/conformance/declared-errors.ts';
import { productionPlugin } from '../fixtures/production-plugin.ts';

test('what the server publishes for a declaring tool is well-formed', async () => {
  const client = await TestClient.start({ plugins: [productionPlugin] });
  try {
    const find = (await client.listTools()).find((t) => t.name === 'find');
    assert.ok(find, 'the find tool is listed');
    const declared = (find._meta as Record<string, unknown>)[ERRORS_META_KEY];
    assert.deepEqual(declaredErrorProblems(declared), []);
  } finally {
    await client.close();
  }
});

test('broken declarations are named, each way', () => {
  assert.deepEqual(declaredErrorProblems([]), ['must be an object of error codes']);
  assert.deepEqual(declaredErrorProblems({}), ['declares no error']);
  assert.deepEqual(
    declaredErrorProblems({ NotFound: { retryable: false }, busy: { retryable: 'yes', hint: '' }, gone: 3 }),
    [
      'code "NotFound" is not lower-case snake_case',
      '"busy".retryable must be true or false',
      '"busy".hint must be a non-empty string',
      '"gone" must be an object',
    ],
  );
});
