/**
 * Plugins by name: `MCP_PLUGINS=hello` finds `plugins/hello/index.ts` (or `.js`) in the
 * working folder first, as an installed package running in the user's project must, then the
 * plugins bundled with the toolkit; a name found in neither says where it looked.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ToolkitError } from '../../src/base/errors.ts';
import { PLUGINS_DIR, resolvePluginPath } from '../../src/plugin/loader.ts';

let project: string;
before(async () => {
  project = await mkdtemp(path.join(tmpdir(), 'mcp-project-'));
  await mkdir(path.join(project, 'plugins', 'hello'), { recursive: true });
  await writeFile(path.join(project, 'plugins', 'hello', 'index.js'), 'export default {};\n');
});
after(() => rm(project, { recursive: true, force: true }));

test("a name resolves to the working folder's plugins/<name>/index.js", () => {
  assert.equal(resolvePluginPath('hello', project), path.join(project, 'plugins', 'hello', 'index.js'));
});

test('a bundled plugin is found from any working folder', () => {
  assert.equal(resolvePluginPath('filesystem', project), path.join(PLUGINS_DIR, 'filesystem', 'index.ts'));
});

test('a name found nowhere names the folder it looked in', () => {
  // Generated, not a common word: a user's own plugins/ may hold any example name (weather...).
  const absent = `absent-${randomUUID().slice(0, 8)}`;
  assert.equal(existsSync(path.join(PLUGINS_DIR, absent)), false);
  assert.throws(
    () => resolvePluginPath(absent, project),
    (err: unknown) =>
      err instanceof ToolkitError &&
      err.message.includes(`plugins/${absent}/index.ts (or index.js)`) &&
      err.message.includes(project),
  );
});
