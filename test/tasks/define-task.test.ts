/** The `task` and `beforeTask` fields of a tool definition: checked at definition time, listed as SEP-1686 asks. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defineTool, InternalCode } from '../../src/index.ts';

const invalid = (e: Error & { code?: string }) => e.code === InternalCode.InvalidDefinition;

test('a task tool is listed with execution.taskSupport; a plain one without', () => {
  const optional = defineTool({ name: 'a', description: 'A', task: 'optional' }, async () => 'a');
  const required = defineTool({ name: 'b', description: 'B', task: 'required' }, async () => 'b');
  const plain = defineTool({ name: 'c', description: 'C' }, async () => 'c');
  assert.deepEqual(optional.listing.execution, { taskSupport: 'optional' });
  assert.deepEqual(required.listing.execution, { taskSupport: 'required' });
  assert.equal(plain.listing.execution, undefined);
});

test('a bad task value, or beforeTask without task, fails at definition', () => {
  assert.throws(
    () => defineTool({ name: 'x', description: 'X', task: 'always' as never }, async () => 'x'),
    invalid,
  );
  assert.throws(
    () => defineTool({ name: 'y', description: 'Y', beforeTask: () => undefined }, async () => 'y'),
    invalid,
  );
});
