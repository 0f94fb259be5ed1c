/**
 * Which operations become tools (include, exclude, read-only) and their names (operationId
 * made valid, names from paths made unique, colliding ids refused with both operations named).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type HttpMethod, type Operation, operationLabel } from '../../../plugins/openapi/document.ts';
import { selectOperations, toolNames } from '../../../plugins/openapi/select.ts';
import { InternalCode, ToolkitError } from '../../../src/index.ts';

function op(method: HttpMethod, path: string, operationId?: string, tags?: string[]): Operation {
  return {
    method,
    path,
    operation: { operationId, tags },
    pathItem: {},
    label: operationLabel(method, path, operationId),
  };
}

const ops = [
  op('get', '/pets', 'listPets', ['pets']),
  op('post', '/pets', 'createPet', ['pets']),
  op('get', '/pets/{petId}', 'showPetById', ['pets']),
  op('delete', '/pets/{petId}', 'deletePet', ['pets']),
  op('get', '/store/inventory', 'getInventory', ['store']),
  op('head', '/health'),
];

const ids = (selected: readonly Operation[]) => selected.map((o) => o.operation.operationId ?? o.label);

describe('selecting operations', () => {
  test('everything by default', () => {
    assert.equal(
      selectOperations(ops, { include: [], exclude: [], readOnly: false }).selected.length,
      ops.length,
    );
  });

  test('by operation id, tag, path glob, and method with a path glob', () => {
    const pick = (include: string[]) =>
      ids(selectOperations(ops, { include, exclude: [], readOnly: false }).selected);
    assert.deepEqual(pick(['getInventory']), ['getInventory']);
    assert.deepEqual(pick(['store', 'createPet']), ['createPet', 'getInventory']);
    assert.deepEqual(pick(['/pets/*']), ['showPetById', 'deletePet']);
    assert.deepEqual(pick(['/pets/{petId}']), ['showPetById', 'deletePet']);
    assert.deepEqual(pick(['/**']), ids(ops));
    assert.deepEqual(pick(['GET /pets/**']), ['listPets', 'showPetById']);
    assert.deepEqual(pick(['delete /pets/*']), ['deletePet']);
  });

  test('exclude wins over include; read-only keeps GET and HEAD', () => {
    const { selected } = selectOperations(ops, {
      include: ['pets'],
      exclude: ['DELETE /**', 'listPets'],
      readOnly: false,
    });
    assert.deepEqual(ids(selected), ['createPet', 'showPetById']);
    const readOnly = selectOperations(ops, { include: [], exclude: [], readOnly: true }).selected;
    assert.deepEqual(ids(readOnly), ['listPets', 'showPetById', 'getInventory', 'HEAD /health']);
  });

  test('include entries that match nothing are reported', () => {
    const { unmatched } = selectOperations(ops, {
      include: ['listPets', 'listPest', '/nope/*'],
      exclude: [],
      readOnly: false,
    });
    assert.deepEqual(unmatched, ['listPest', '/nope/*']);
  });
});

describe('tool names', () => {
  test('operation ids made valid; paths give names when there is no id', () => {
    const names = toolNames([
      op('get', '/a', 'list pets (v2)'),
      op('get', '/b', 'über/thing'),
      op('get', '/c', 'x'.repeat(80)),
      op('get', '/pets/{petId}/photos'),
      op('get', '/'),
    ]);
    assert.deepEqual(names, ['list_pets_v2', 'ber_thing', 'x'.repeat(64), 'get_pets_petId_photos', 'get']);
    for (const name of names) assert.match(name, /^[A-Za-z0-9_.-]{1,64}$/);
  });

  test('a generated name never takes an operation id, and is made unique', () => {
    assert.deepEqual(toolNames([op('get', '/pets'), op('post', '/x', 'get_pets'), op('get', '/pets/')]), [
      'get_pets_2',
      'get_pets',
      'get_pets_3',
    ]);
  });

  test('two operation ids that give one name refuse, naming both operations', () => {
    for (const [a, b] of [
      ['listPets', 'listPets'],
      ['list-pets!', 'list-pets?'],
    ] as const) {
      assert.throws(
        () => toolNames([op('get', '/pets', a), op('get', '/animals', b), op('get', '/ok', 'fine')]),
        (err: unknown) => {
          assert.ok(err instanceof ToolkitError);
          assert.equal(err.code, InternalCode.DuplicateName);
          assert.ok(err.message.includes(`GET /pets (${a})`), err.message);
          assert.ok(err.message.includes(`GET /animals (${b})`), err.message);
          assert.match(err.message, /MCP_OPENAPI_EXCLUDE/);
          return true;
        },
      );
    }
  });
});
