/**
 * Registry.batch, the swap behind `mcp-toolkit dev`'s reload: the listeners hear one change
 * per list whose listing differs afterwards (with every item touched), and nothing for a list
 * that lists as before, however much was removed and added again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definePrompt, defineResource, defineTool } from '../../src/registry/define.ts';
import type { ListChange } from '../../src/registry/list-change.ts';
import { Registry } from '../../src/registry/registry.ts';

const tool = (name: string, description = `Says ${name}`) =>
  defineTool({ name, description }, async () => name);

test('one change per list that changed, none for a list that lists as before', () => {
  const registry = new Registry()
    .add(tool('a'))
    .add(defineResource({ uri: 'x://r', name: 'r' }, async () => 'r'))
    .add(definePrompt({ name: 'p', description: 'Asks p' }, async () => 'p'));
  const heard: ListChange[] = [];
  registry.onChange((c) => heard.push(c));

  const announced = registry.batch(() => {
    registry.remove('tool', 'a');
    registry.remove('resource', 'x://r');
    registry.remove('prompt', 'p');
    registry.add(tool('a', 'Says a, differently'));
    registry.add(defineResource({ uri: 'x://r', name: 'r' }, async () => 'new body'));
    registry.add(definePrompt({ name: 'p', description: 'Asks p' }, async () => 'new body'));
  });
  assert.deepEqual(announced, ['tools']);
  assert.deepEqual(
    heard.map((c) => [c.kind, c.items?.map((i) => i.key)]),
    [['tools', ['a', 'a']]],
  );
});

test('a list a plugin announced itself inside a batch is announced once, saying nothing of what changed', () => {
  const registry = new Registry().add(tool('a'));
  const heard: ListChange[] = [];
  registry.onChange((c) => heard.push(c));
  registry.batch(() => {
    registry.notifyListChanged('resources');
    registry.notifyListChanged('resources');
  });
  assert.deepEqual(heard, [{ kind: 'resources' }]);
  // Outside a batch, every change is told as it happens.
  registry.remove('tool', 'a');
  assert.equal(heard.length, 2);
});
