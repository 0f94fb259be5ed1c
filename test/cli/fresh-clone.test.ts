/**
 * The clone stands alone: the repository's files in an empty folder (no `../shared` beside
 * them, no MCP_SPEC_SCHEMAS_DIR) start with `npm start` and pass the tests that validate
 * against the spec schemas, without the schemas and without hanging. This is the bounded
 * version (this checkout's node_modules linked, two test files); `.ci/run` runs the whole of
 * `npm install && npm test` in a real fresh clone.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

const ROOT = new URL('../../', import.meta.url);

test('npm start serves and the schema-validating tests pass in a folder with nothing beside it', () => {
  const files = ['test/helpers-tests/spec-schema.test.ts', 'test/conformance/http-input.test.ts'];
  const r = spawnSync(
    process.execPath,
    ['scripts/fresh-clone.ts', '--copy', '--link-modules', '--tests', files.join(',')],
    { cwd: ROOT, encoding: 'utf8', timeout: 180_000, env: { ...process.env, MCP_SPEC_SCHEMAS_DIR: '' } },
  );
  const output = `${r.stdout}\n${r.stderr}`;
  assert.equal(r.status, 0, output);
  assert.match(output, /npm start served http:\/\/127\.0\.0\.1:\d+\/mcp \(\/healthz 200\)/);
  // The suite said, once, that it ran without the schemas, and ran the rest.
  assert.equal(output.match(/the MCP specification's JSON Schemas are not in /g)?.length, 1, output);
  assert.match(
    output,
    /git clone --depth 1 https:\/\/github.com\/modelcontextprotocol\/modelcontextprotocol /,
  );
  assert.match(output, /ℹ fail 0/);
  assert.match(output, /fresh-clone: passed/);
});

test("a user's own plugin with a required setting in plugins/ keeps the starter's tests green", () => {
  // The tests that read plugins/, the settings table or every plugin's settings.
  const files = [
    'test/config/settings.test.ts',
    'test/config/settings-table.test.ts',
    'test/architecture/layers.test.ts',
    'test/deploy/dockerfile.test.ts',
    'test/plugins/plugin-resolution.test.ts',
    'test/testing/schema-portability.test.ts',
  ];
  const r = spawnSync(
    process.execPath,
    [
      'scripts/fresh-clone.ts',
      '--copy',
      '--link-modules',
      '--add-plugin',
      'test/fixtures/weather-plugin',
      '--tests',
      files.join(','),
    ],
    { cwd: ROOT, encoding: 'utf8', timeout: 240_000, env: { ...process.env, MCP_SPEC_SCHEMAS_DIR: '' } },
  );
  const output = `${r.stdout}\n${r.stderr}`;
  assert.equal(r.status, 0, output);
  assert.match(output, /added the plugin plugins\/weather-plugin/);
  assert.match(output, /ℹ fail 0/);
  assert.match(output, /fresh-clone: passed/);
});
