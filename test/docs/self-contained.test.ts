/**
 * The clone stands alone: what a maintainer needs of the design lives under docs/
 * (docs/internals/architecture.md, docs/internals/conformance-fixture.md), so no file of the repository's code,
 * tests or docs refers to a design document or a folder kept beside the clone.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Spelled in parts so this file does not match itself.
const OUTSIDE = ['DESIGN', '\\.md', '|fixture', '-contract', '|\\.\\./', 'shared/'].join('');

test('src/, test/, docs/, plugins/ and the README name no file outside the repository', () => {
  const tracked = execFileSync(
    'git',
    ['ls-files', '-z', '--', 'src', 'test', 'docs', 'plugins', 'README.md'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  )
    .split('\0')
    .filter((f) => f !== '');
  let hits = '';
  try {
    hits = execFileSync('git', ['grep', '-nE', OUTSIDE, '--', ...tracked], { cwd: ROOT, encoding: 'utf8' });
  } catch (error) {
    // git grep exits 1 when nothing matches: the case this test wants.
    if ((error as { status?: number }).status !== 1) throw error;
  }
  assert.equal(hits, '', `files that point outside the repository:\n${hits}`);
});
