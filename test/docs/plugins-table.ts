/**
 * The table under "## The bundled plugins" in docs/plugins.md, read for the tests that compare
 * it with the build's list (test/docs/bundled-plugins.test.ts) and with the container image
 * (test/deploy/dockerfile.test.ts, test/deploy/image-built.test.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

/** The rows of the table under "## The bundled plugins" in docs/plugins.md: name and text. */
function rows(): { name: string; text: string }[] {
  const text = readFileSync(path.join(REPO_ROOT, 'docs/plugins.md'), 'utf8');
  const start = text.indexOf('\n## The bundled plugins\n');
  assert.notEqual(start, -1, 'docs/plugins.md has a "## The bundled plugins" section');
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^\| `([a-z][a-z0-9-]*)` \|(.*)$/gm)].map((m) => ({
    name: m[1] ?? '',
    text: m[2] ?? '',
  }));
}

/** The first column of that table. */
export function documented(): string[] {
  return rows().map((r) => r.name);
}

/** The plugins of that table the container image carries: those not marked as a test fixture. */
export function documentedInImage(): string[] {
  return rows()
    .filter((r) => !r.text.includes('not in the container image'))
    .map((r) => r.name);
}
