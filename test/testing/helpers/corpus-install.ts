/**
 * A corpus server whose framework cannot share the toolkit's node_modules (mcp-framework needs
 * zod 3; the toolkit is on zod 4) lives in a folder of its own under test/testing/corpus/, with
 * its own package.json and lockfile. `.ci/run` installs each (`npm run corpus:install`); a test
 * that finds its folder not installed installs it here with `npm ci`, and when that fails (no
 * registry, no npm) skips with the reason and the command to run.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './fixtures.ts';

const run = promisify(execFile);

/** `npm ci` of a cold folder on a loaded machine: a couple of minutes at most. */
const INSTALL_TIMEOUT_MS = 240_000;

/**
 * The folder `test/testing/corpus/<name>`, installed: false when `pkg` is there (installing it
 * first if need be), or the reason it is not, for a test's `skip`.
 */
export async function corpusInstalled(name: string, pkg: string): Promise<false | string> {
  const dir = path.join(REPO_ROOT, 'test/testing/corpus', name);
  const ready = () => existsSync(path.join(dir, 'node_modules', pkg, 'package.json'));
  if (ready()) return false;
  try {
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    await run('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund'], {
      env,
      timeout: INSTALL_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    // npm's first error lines say what failed (`npm error code ECONNREFUSED`); its last one only
    // where its log went. No npm at all: the spawn error (`spawn npm ENOENT`).
    const lines = String((err as { stderr?: string }).stderr ?? '')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !/complete log of this run/.test(l));
    const said = lines.slice(0, 2).join('; ') || (err as Error).message;
    return `test/testing/corpus/${name} is not installed and npm ci could not install it (${said}): run npm run corpus:install`;
  }
  return ready() ? false : `test/testing/corpus/${name}: npm ci ran but ${pkg} is not there`;
}
