import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { boundedMethod, boundTarget, errorTypeOf, spanName } from '../../src/telemetry/semconv.ts';

describe('semantic-convention helpers', () => {
  test('span name is `{method} {target}` for known tools and prompts, the method otherwise', () => {
    assert.equal(spanName('tools/call', 'read_file', true), 'tools/call read_file');
    assert.equal(spanName('prompts/get', 'review', true), 'prompts/get review');
    assert.equal(spanName('resources/read', 'file:///a', true), 'resources/read');
    assert.equal(spanName('tools/call', undefined, false), 'tools/call');
    assert.equal(spanName('initialize', undefined, false), 'initialize');
  });

  test('a client-chosen name that matches nothing never reaches a span name', () => {
    assert.equal(spanName('tools/call', 'no_such_tool', false), 'tools/call');
    assert.equal(spanName('prompts/get', 'no_such_prompt', false), 'prompts/get');
    assert.equal(spanName('made/up', undefined, false), '_OTHER');
    assert.equal(spanName('made/up', 'x', true), '_OTHER');
  });

  test('error.type: explicit, then JSON-RPC code, then tool_error', () => {
    assert.equal(errorTypeOf({}), undefined);
    assert.equal(errorTypeOf({ isError: false }), undefined);
    assert.equal(errorTypeOf({ isError: true }), 'tool_error');
    assert.equal(errorTypeOf({ code: -32602, isError: true }), '-32602');
    assert.equal(errorTypeOf({ error: 'timeout', code: -32602 }), 'timeout');
  });

  test('client-chosen names are bounded', () => {
    assert.equal(boundedMethod('made/up'), '_OTHER');
    assert.equal(boundedMethod('tools/call'), 'tools/call');
    assert.equal(boundTarget('x'.repeat(1000))?.length, 256);
    assert.equal(boundTarget('read_file'), 'read_file');
    assert.equal(boundTarget(undefined), undefined);
  });
});
