import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.ts';
import { boundTarget, errorTypeOf, metricMethod, spanName } from '../../src/telemetry/semconv.ts';

describe('semantic-convention helpers', () => {
  test('span name is `{method} {target}` for tools and prompts, the method otherwise', () => {
    assert.equal(spanName('tools/call', 'read_file'), 'tools/call read_file');
    assert.equal(spanName('prompts/get', 'review'), 'prompts/get review');
    assert.equal(spanName('resources/read', 'file:///a'), 'resources/read');
    assert.equal(spanName('tools/call', undefined), 'tools/call');
    assert.equal(spanName('initialize', undefined), 'initialize');
  });

  test('error.type: explicit, then JSON-RPC code, then tool_error', () => {
    assert.equal(errorTypeOf({}), undefined);
    assert.equal(errorTypeOf({ isError: false }), undefined);
    assert.equal(errorTypeOf({ isError: true }), 'tool_error');
    assert.equal(errorTypeOf({ code: -32602, isError: true }), '-32602');
    assert.equal(errorTypeOf({ error: 'timeout', code: -32602 }), 'timeout');
  });

  test('client-chosen names are bounded', () => {
    assert.equal(metricMethod('made/up', ErrorCode.MethodNotFound), '_OTHER');
    assert.equal(metricMethod('tools/call', ErrorCode.InvalidParams), 'tools/call');
    assert.equal(boundTarget('x'.repeat(1000))?.length, 256);
    assert.equal(boundTarget('read_file'), 'read_file');
    assert.equal(boundTarget(undefined), undefined);
  });
});
