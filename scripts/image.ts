/**
 * Builds the container image from the repository's own Dockerfile, unchanged, and runs it the
 * way a container runtime would, then runs test/deploy/image-built.test.ts against it.
 *
 *   node scripts/image.ts            build, export, test; skipped (exit 0) without podman
 *   node scripts/image.ts --require  the same, but a missing tool is an error (CI)
 *   node scripts/image.ts --keep     leave the exported file system in .cache/image/ afterwards
 *
 * Our machines run no Docker daemon and cannot start containers (the OCI runtimes' setrlimit
 * is refused), so the image is built with podman (`--isolation=chroot`) and then run from its
 * exported file system: `podman create` + `podman export` into a folder, /proc and /dev bound
 * into it, and the test starts the image's Cmd with `chroot --userspec=<User>` and exactly the
 * image's Env and WorkingDir (read with `podman image inspect`), plus the `-e` settings a
 * `docker run` would add. Where the Dockerfile's base image cannot be pulled, a stand-in with
 * the same name is made first (scripts/image-stand-in.sh).
 */
import { type SpawnSyncOptions, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TAG = 'localhost/mcp-toolkit:image-test';
const WORK = path.join(ROOT, '.cache', 'image');

const { values } = parseArgs({
  options: { require: { type: 'boolean', default: false }, keep: { type: 'boolean', default: false } },
});

function say(line: string): void {
  process.stderr.write(`image: ${line}\n`);
}

function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** Runs a command, its output shown; a failure stops the script with the command's own code. */
function sh(command: string, args: string[], options: SpawnSyncOptions = {}): string {
  const result = spawnSync(command, args, {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
    ...options,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    say(`${command} ${args.join(' ')} failed (exit ${result.status})`);
    process.exit(result.status ?? 1);
  }
  return String(result.stdout ?? '');
}

const missing = ['podman', 'debootstrap', 'chroot', 'mount', 'tar'].filter((c) => !has(c));
const notRoot = process.getuid?.() !== 0;
if (missing.length > 0 || notRoot) {
  const why =
    missing.length > 0
      ? `${missing.join(', ')} not installed (Debian: apt-get install podman debootstrap)`
      : 'not root (chroot and the bind mounts need root)';
  if (values.require) {
    say(`cannot build and run the image: ${why}`);
    process.exit(1);
  }
  say(`skipped: ${why}. The image is built and tested by CI (.ci/run).`);
  process.exit(0);
}

// Every base the Dockerfile names must exist locally; those that cannot be pulled get a stand-in.
const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
const bases = [...new Set([...dockerfile.matchAll(/^FROM\s+(\S+)/gim)].map((m) => m[1]!))];
for (const base of bases) {
  const name = base.includes('/') ? base : `docker.io/library/${base}`;
  if (spawnSync('podman', ['image', 'exists', name]).status === 0) continue;
  say(`${name} is not in podman's store; making a stand-in`);
  sh('bash', [path.join(ROOT, 'scripts', 'image-stand-in.sh'), name], { stdio: 'inherit' });
}

say(`podman build (${TAG})`);
const started = Date.now();
// --format docker keeps HEALTHCHECK, which the OCI format drops.
sh('podman', ['build', '--isolation=chroot', '--network=host', '--format', 'docker', '-t', TAG, '.'], {
  stdio: ['ignore', 'inherit', 'inherit'],
});
say(`built in ${Math.round((Date.now() - started) / 1000)} s`);

const [inspected] = JSON.parse(sh('podman', ['image', 'inspect', TAG])) as [
  { Size: number; Config: Record<string, unknown>; Healthcheck?: unknown },
];
if (!inspected) throw new Error(`podman image inspect ${TAG} printed nothing`);

/** Mount points at or under `dir`, from this process's mount table. */
function mountedUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((point) => point === dir || point.startsWith(`${dir}/`));
}

/** Removes the work folder, never through a bind mount that is still there (it would reach /dev). */
function removeWork(): void {
  const left = mountedUnder(WORK);
  if (left.length > 0) {
    say(`left ${WORK} in place: still mounted at ${left.join(', ')} (umount -R -l them, then remove it)`);
    return;
  }
  rmSync(WORK, { recursive: true, force: true });
}

removeWork();
if (mountedUnder(WORK).length > 0) process.exit(1);
const rootfs = path.join(WORK, 'rootfs');
mkdirSync(rootfs, { recursive: true });
const container = sh('podman', ['create', TAG]).trim();
try {
  const exported = spawnSync('sh', ['-c', `podman export ${container} | tar -x -C "${rootfs}"`], {
    stdio: 'inherit',
  });
  if (exported.status !== 0) throw new Error('podman export failed');
} finally {
  spawnSync('podman', ['rm', container], { stdio: 'ignore' });
}

const mounts = ['proc', 'dev'].map((m) => path.join(rootfs, m));
for (const target of mounts) {
  mkdirSync(target, { recursive: true });
  sh('mount', ['--rbind', `/${path.basename(target)}`, target]);
  // A slave of the host's mounts: unmounting it later never unmounts the host's own.
  sh('mount', ['--make-rslave', target]);
}
let code = 1;
try {
  const descriptor = path.join(WORK, 'image.json');
  writeFileSync(
    descriptor,
    `${JSON.stringify(
      {
        tag: TAG,
        rootfs,
        size: inspected.Size,
        config: inspected.Config,
        healthcheck: inspected.Healthcheck,
      },
      null,
      2,
    )}\n`,
  );
  say(`exported to ${rootfs}; image size ${(inspected.Size / 1e6).toFixed(0)} MB; running its tests`);
  const test = spawnSync(
    process.execPath,
    ['--test', '--test-reporter=spec', path.join('test', 'deploy', 'image-built.test.ts')],
    { cwd: ROOT, stdio: 'inherit', env: { ...process.env, MCP_TEST_IMAGE: descriptor } },
  );
  code = test.status ?? 1;
} finally {
  for (const target of mounts.reverse()) {
    if (spawnSync('umount', ['-R', target], { stdio: 'ignore' }).status !== 0) {
      spawnSync('umount', ['-R', '-l', target], { stdio: 'ignore' });
    }
  }
  if (!values.keep) removeWork();
  spawnSync('podman', ['rmi', TAG], { stdio: 'ignore' });
}
process.exit(code);
