/**
 * One build of the packages (`scripts/build.ts`: dist/ and dist-create/) for the test files that
 * pack, publish or install them (test/testing/pack.test.ts, test/e2e/registry-install.test.ts):
 * two tsc runs, tens of seconds of CPU, done once per state of the sources instead of once per
 * file. The build runs in a copy of the clone (the clone's own dist/ is left alone) under
 * `.cache/package-build/`, in a folder named by a hash of everything the build reads; a test
 * file that asks while another is building waits for that build (a lock folder holding the
 * builder's pid: a lock whose process is gone is taken over). Older builds are removed.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from './spawn-server.ts';

/** What the build reads of the clone (node_modules is linked, package-lock.json names its versions). */
const BUILD_PARTS = [
  'package.json',
  'package-lock.json',
  'README.md',
  'tsconfig.json',
  'tsconfig.build.json',
  'bin',
  'scripts',
  'src',
  'plugins',
  'packages',
];
/** Two tsc runs: minutes on a loaded two-core machine. */
const BUILD_TIMEOUT_MS = 600_000;
const CACHE = path.join(REPO_ROOT, '.cache', 'package-build');

/** A hash of every file the build reads (paths and contents). */
function sourcesHash(): string {
  const hash = createHash('sha256');
  const add = (rel: string) => {
    const full = path.join(REPO_ROOT, rel);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) {
        if (name !== 'node_modules') add(path.join(rel, name));
      }
    } else {
      hash.update(`${rel}\0`).update(readFileSync(full)).update('\0');
    }
  };
  for (const part of BUILD_PARTS) add(part);
  return hash.digest('hex').slice(0, 16);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * The folder holding `dist/` and `dist-create/` built from the clone's sources as they are now.
 *
 * @example
 * const built = await packageBuild();
 * await run('npm', ['pack', path.join(built, 'dist')]);
 */
export async function packageBuild(): Promise<string> {
  const target = path.join(CACHE, sourcesHash());
  const done = path.join(target, '.done');
  const lock = `${target}.lock`;
  const deadline = Date.now() + BUILD_TIMEOUT_MS + 60_000;
  await mkdir(CACHE, { recursive: true });
  for (;;) {
    if (existsSync(done)) return target;
    try {
      await mkdir(lock);
    } catch {
      // Another test file is building these sources: wait for it, or take over a dead one's lock.
      const holder = Number(await readFile(path.join(lock, 'pid'), 'utf8').catch(() => 'NaN'));
      if (Number.isInteger(holder) && !alive(holder)) await rm(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`packageBuild: the build in ${target} did not finish`);
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    try {
      await writeFile(path.join(lock, 'pid'), String(process.pid));
      await build(target);
      return target;
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }
}

async function build(target: string): Promise<void> {
  const work = `${target}.work-${process.pid}`;
  await rm(work, { recursive: true, force: true });
  for (const part of BUILD_PARTS) {
    if (!existsSync(path.join(REPO_ROOT, part))) continue;
    await cp(path.join(REPO_ROOT, part), path.join(work, part), {
      recursive: true,
      filter: (src) => !src.includes(`${path.sep}node_modules`),
    });
  }
  await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(work, 'node_modules'), 'dir');
  const out = await new Promise<string | undefined>((resolve) =>
    execFile(
      process.execPath,
      ['scripts/build.ts'],
      { cwd: work, timeout: BUILD_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve(error ? `${stdout}${stderr}`.slice(-3000) : undefined),
    ),
  );
  if (out !== undefined) {
    await rm(work, { recursive: true, force: true });
    throw new Error(`packageBuild: node scripts/build.ts failed:\n${out}`);
  }
  // Older builds (of sources since changed) go; this one takes its place whole.
  for (const name of readdirSync(CACHE)) {
    const old = path.join(CACHE, name);
    if (old !== work && !name.includes('.') && old !== target)
      await rm(old, { recursive: true, force: true });
  }
  await rm(target, { recursive: true, force: true });
  await rename(work, target);
  await writeFile(path.join(target, '.done'), '');
}
