/**
 * The bundled plugins are one list: `BUNDLED_PLUGINS` (scripts/bundled-plugins.ts), which the
 * build goes by, is the table of docs/plugins.md ("The bundled plugins") and the plugins of the
 * clone; the build's selection leaves any other folder under plugins/ out.
 * test/testing/tarball.test.ts checks the same on a real tarball.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { BUNDLED_PLUGINS, selectPlugins } from '../../scripts/bundled-plugins.ts';
import { PLUGINS_DIR } from '../../src/plugin-loader.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

/** The first column of the table under "## The bundled plugins" in docs/plugins.md. */
function documented(): string[] {
  const text = readFileSync(path.join(REPO_ROOT, 'docs/plugins.md'), 'utf8');
  const start = text.indexOf('\n## The bundled plugins\n');
  assert.notEqual(start, -1, 'docs/plugins.md has a "## The bundled plugins" section');
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^\| `([a-z][a-z0-9-]*)` \|/gm)].map((m) => m[1] ?? '');
}

test('docs/plugins.md lists exactly the bundled plugins', () => {
  assert.deepEqual([...documented()].sort(), [...BUNDLED_PLUGINS].sort());
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
