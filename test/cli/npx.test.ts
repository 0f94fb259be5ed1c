/**
 * The `npx mcp-toolkit ...` lines of the docs work in a clone: npx finds this package's own
 * `mcp-toolkit` command (not an unrelated package of that name from the registry), and each
 * command the docs run answers. test/testing/pack.test.ts runs the same lines where the
 * packed tarball is installed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { docNpxCommands } from '../helpers/doc-blocks.ts';
import { childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';

const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
};
// npx comes from PATH, run by this Node (its folder first on the children's PATH).
const env = {
  ...childEnv(),
  PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
};

function npx(args: string[]) {
  // --offline: npx must not fetch anything; this package's own command is all it needs.
  return spawnSync('npx', ['--offline', 'mcp-toolkit', ...args], {
    cwd: REPO_ROOT,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
}

test('npx mcp-toolkit in the clone is this package', () => {
  const r = npx(['--version']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), version);
});

test('every command the docs run with npx answers in the clone', () => {
  const commands = docNpxCommands();
  assert.ok(commands.includes('run'), `found: ${commands.join(', ')}`);
  for (const command of commands) {
    const r = npx([command, '--help']);
    assert.equal(r.status, 0, `npx mcp-toolkit ${command} --help: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^Usage: mcp-toolkit ${command}\\b`));
  }
});
