/**
 * docs/testing.md lists every check of `mcp-toolkit check` and every family of generated tests
 * with the level and source the code gives it, and the flags the commands accept.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { CHECK_HELP } from '../../src/cli/check.ts';
import { TEST_HELP } from '../../src/cli/test.ts';
import { CHECKS } from '../../src/testing/conformance/check-catalog.ts';
import { LIVE_CHECKS } from '../../src/testing/live/catalog.ts';
import { REPO_ROOT } from './helpers/fixtures.ts';

const docs = await readFile(path.join(REPO_ROOT, 'docs/testing.md'), 'utf8');

test('every check and family is in docs/testing.md with its level and source', () => {
  for (const [id, c] of [...Object.entries(CHECKS), ...Object.entries(LIVE_CHECKS)]) {
    const level = c.level === 'HOUSE' ? 'house' : c.level;
    const row = `| \`${id}\` | ${level} | ${c.title.replaceAll('|', '\\|')} | ${c.source.label} |`;
    assert.ok(docs.includes(row), `docs/testing.md lacks the row ${row}`);
  }
});

test('every flag of check and test is documented', () => {
  const flags = new Set([...`${CHECK_HELP}\n${TEST_HELP}`.matchAll(/(--[a-z][a-z-]+)/g)].map((m) => m[1]));
  for (const flag of flags)
    assert.match(docs, new RegExp(`${flag}(?![a-z-])`), `${flag} is not in docs/testing.md`);
});
