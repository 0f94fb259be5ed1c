/**
 * The bundled plugins are one list: `BUNDLED_PLUGINS` (scripts/bundled-plugins.ts), which the
 * build goes by, is the table of docs/plugins.md ("The bundled plugins") and the plugins of the
 * clone; the build's selection leaves any other folder under plugins/ out. The rows marked
 * "not in the container image" are the fixtures the image leaves out
 * (test/deploy/dockerfile.test.ts reads .dockerignore, image-built.test.ts the built image).
 * test/testing/tarball.test.ts checks the same on a real tarball.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import {
  BUNDLED_PLUGINS,
  FIXTURE_PLUGINS,
  IMAGE_PLUGINS,
  selectPlugins,
} from '../../scripts/bundled-plugins.ts';
import { PLUGINS_DIR } from '../../src/plugin/loader.ts';
import { documented, documentedInImage } from './plugins-table.ts';

test('docs/plugins.md lists exactly the bundled plugins', () => {
  assert.deepEqual([...documented()].sort(), [...BUNDLED_PLUGINS].sort());
});

test('docs/plugins.md marks exactly the fixtures as not in the container image', () => {
  assert.deepEqual([...documentedInImage()].sort(), [...IMAGE_PLUGINS].sort());
  assert.deepEqual(
    BUNDLED_PLUGINS.filter((p) => !documentedInImage().includes(p)),
    FIXTURE_PLUGINS,
  );
});

test('every bundled plugin is a folder of the clone', () => {
  assert.deepEqual(selectPlugins(PLUGINS_DIR).bundled, BUNDLED_PLUGINS);
});

const planted = mkdtempSync(path.join(tmpdir(), 'mcp-bundled-'));
after(() => rmSync(planted, { recursive: true, force: true }));

test('a folder of the clone owner under plugins/ is left out of the build', () => {
  for (const name of [...BUNDLED_PLUGINS, 'my-own']) {
    mkdirSync(path.join(planted, name));
    writeFileSync(path.join(planted, name, 'index.ts'), 'export default {};\n');
  }
  writeFileSync(path.join(planted, 'notes.md'), 'not a folder\n');
  const selection = selectPlugins(planted);
  assert.deepEqual(selection.bundled, BUNDLED_PLUGINS);
  assert.deepEqual(selection.leftOut, ['my-own']);
});

test('a bundled plugin missing from plugins/ stops the build', () => {
  const empty = path.join(planted, 'empty');
  mkdirSync(empty);
  assert.throws(() => selectPlugins(empty), /bundled plugin "audit-log" has no /);
});
