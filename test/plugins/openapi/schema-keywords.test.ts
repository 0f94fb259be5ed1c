/**
 * The OpenAPI plugin imports only the public entry, so it keeps its own copy of the JSON Schema
 * keywords it walks and of the formats every client accepts: this holds the copy equal to the
 * toolkit's one list (src/base/schema-keywords.ts), which the portability check reads. The
 * plugin walks no `$defs`/`definitions` (its schemas are dereferenced, and those dropped).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  INPUT_FORMATS,
  ONE_SCHEMA,
  SCHEMA_LISTS,
  SCHEMA_MAPS,
} from '../../../plugins/openapi/portable-schema.ts';
import {
  PORTABLE_FORMATS,
  SUBSCHEMA_KEYWORDS,
  SUBSCHEMA_LIST_KEYWORDS,
  SUBSCHEMA_MAP_KEYWORDS,
} from '../../../src/base/schema-keywords.ts';

test("the plugin's keyword lists are the toolkit's, in the same order", () => {
  assert.deepEqual(ONE_SCHEMA, SUBSCHEMA_KEYWORDS);
  assert.deepEqual(SCHEMA_LISTS, SUBSCHEMA_LIST_KEYWORDS);
  assert.deepEqual(SCHEMA_MAPS, SUBSCHEMA_MAP_KEYWORDS);
});

test("the plugin's input formats are the toolkit's portable formats", () => {
  assert.deepEqual([...INPUT_FORMATS], PORTABLE_FORMATS);
});
