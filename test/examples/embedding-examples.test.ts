/**
 * docs/embedding.md's complete files are in examples/ as they are printed: the block that
 * starts `// own-server.ts` is examples/own-server.ts without that line, and so on. The docs
 * test type-checks and runs the blocks (test/docs/code-blocks.test.ts), so the files are too.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

const FILES = ['own-server.ts', 'embedded-app.ts'];

test('docs/embedding.md prints examples/own-server.ts and examples/embedded-app.ts as they are', async () => {
  const page = await readFile(path.join(REPO_ROOT, 'docs/embedding.md'), 'utf8');
  for (const name of FILES) {
    const start = page.indexOf(`\`\`\`ts\n// ${name}\n`);
    assert.notEqual(start, -1, `a block starting // ${name}`);
    const body = page.slice(
      page.indexOf('\n', page.indexOf('\n', start) + 1) + 1,
      page.indexOf('```\n', start + 6),
    );
    assert.equal(body, await readFile(path.join(REPO_ROOT, 'examples', name), 'utf8'), name);
  }
});
