/**
 * Running a built image without a container: where the engine cannot start one, its file
 * system is exported into a folder (`create` + `export`), /proc and /dev are bound into it, and
 * its Entrypoint + Cmd run under `chroot --userspec=<User>` with exactly its Env (HOME as a
 * runtime sets it) and WorkingDir, plus the settings a `run -e` would add. `npm run image --
 * --run` and the image test (test/deploy/image-built.test.ts) start the image this way.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import type { Engine, ImageConfig } from './engine.ts';

/** Mount points at or under `dir`, from this process's mount table. */
export function mountedUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((point) => point === dir || point.startsWith(`${dir}/`));
}

/** Unmounts everything at or under `dir` (lazily when busy), deepest first. */
export function unmountUnder(dir: string): void {
  for (const point of mountedUnder(dir).sort((a, b) => b.length - a.length)) {
    if (spawnSync('umount', ['-R', point], { stdio: 'ignore' }).status !== 0) {
      spawnSync('umount', ['-R', '-l', point], { stdio: 'ignore' });
    }
  }
}

/**
 * Removes `dir`, never through a bind mount still there (it would reach the host's /dev):
 * what is mounted under it is unmounted first; false when something stays mounted. The folder
 * is renamed at once and deleted by a detached `rm -rf`, so the caller does not wait for the
 * image's ~300 MB to be freed (minutes on a disk that discards each freed block).
 */
export function removeTree(dir: string): boolean {
  unmountUnder(dir);
  if (mountedUnder(dir).length > 0) return false;
  if (!existsSync(dir)) return true;
  const trash = path.join(path.dirname(dir), `trash-${path.basename(dir)}-${Date.now()}`);
  renameSync(dir, trash);
  spawn('rm', ['-rf', trash], { detached: true, stdio: 'ignore' }).unref();
  return true;
}

/** Exports the image's file system into `rootfs` (created empty). */
export function exportRootfs(engine: Engine, tag: string, rootfs: string): void {
  mkdirSync(rootfs, { recursive: true });
  const created = spawnSync(engine.name, ['create', tag], { encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`${engine.name} create ${tag}: ${created.stderr}`);
  const container = created.stdout.trim();
  try {
    const exported = spawnSync(
      'sh',
      ['-c', `${engine.name} export "$1" | tar -x -C "$2"`, 'sh', container, rootfs],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    if (exported.status !== 0) throw new Error(`${engine.name} export failed`);
  } finally {
    spawnSync(engine.name, ['rm', container], { stdio: 'ignore' });
  }
}

/** Binds the host's /proc and /dev into `rootfs`; returns what undoes it. */
export function mountSystem(rootfs: string): () => void {
  const targets = ['proc', 'dev'].map((m) => path.join(rootfs, m));
  for (const target of targets) {
    mkdirSync(target, { recursive: true });
    for (const args of [
      ['--rbind', `/${path.basename(target)}`, target],
      // A slave of the host's mounts: unmounting it later never unmounts the host's own.
      ['--make-rslave', target],
    ]) {
      if (spawnSync('mount', args, { stdio: 'inherit' }).status !== 0)
        throw new Error(`mount ${args.join(' ')} failed`);
    }
  }
  return () => {
    for (const target of [...targets].reverse()) unmountUnder(target);
  };
}

/** The image's Env as a map, in its order. */
export function imageEnv(config: ImageConfig): Map<string, string> {
  const env = new Map<string, string>();
  for (const entry of config.Env ?? []) {
    const eq = entry.indexOf('=');
    env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

/** HOME as a runtime sets it when the image does not: the user's entry in the image's passwd. */
function homeOf(rootfs: string, user: string): string {
  const uid = user.split(':')[0];
  const line = readFileSync(path.join(rootfs, 'etc', 'passwd'), 'utf8')
    .split('\n')
    .find((l) => l.split(':')[2] === uid || l.split(':')[0] === uid);
  return line?.split(':')[5] ?? '/';
}

/**
 * `chroot`'s arguments that run `command` in the exported image as its User, with its Env
 * (HOME added as a runtime would, then `extra` on top) in its WorkingDir.
 *
 * @example
 * spawn('chroot', chrootArgs(rootfs, config, [...(config.Entrypoint ?? []), ...config.Cmd], { MCP_HTTP_PORT: '0' }));
 */
export function chrootArgs(
  rootfs: string,
  config: ImageConfig,
  command: readonly string[],
  extra: Readonly<Record<string, string>>,
): string[] {
  const env = imageEnv(config);
  if (!env.has('HOME')) env.set('HOME', homeOf(rootfs, config.User || '0'));
  for (const [k, v] of Object.entries(extra)) env.set(k, v);
  return [
    `--userspec=${config.User || '0:0'}`,
    rootfs,
    '/usr/bin/env',
    '-i',
    `--chdir=${config.WorkingDir || '/'}`,
    ...[...env].map(([k, v]) => `${k}=${v}`),
    ...command,
  ];
}

/** The image's Entrypoint followed by its Cmd: what a runtime starts. */
export function startCommand(config: ImageConfig): string[] {
  return [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])];
}
