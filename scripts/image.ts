/**
 * `npm run image`: builds the container image from the repository's Dockerfile, unchanged, with
 * the user's Docker (when its daemon answers) or podman, and with `--run` starts it. Where the
 * Dockerfile's base image cannot be pulled (no registry reachable), a stand-in of the same
 * name is made first (scripts/image-stand-in.sh: Debian from debootstrap, Node from the npm
 * registry). Where the engine cannot start containers (podman's OCI runtime refused, as on our
 * CI machines), the build's RUN steps use chroot isolation and `--run` starts the image's
 * exported file system under its User, Env and Cmd (scripts/image/rootfs.ts). `--test` builds
 * and runs test/deploy/image-built.test.ts against the image (CI: `--require`).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  buildArgs,
  canStartContainers,
  type Engine,
  fullName,
  has,
  imageExists,
  inspectImage,
  pickEngine,
  pull,
  runEngine,
} from './image/engine.ts';
import { chrootArgs, exportRootfs, mountSystem, removeTree, startCommand } from './image/rootfs.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = path.join(ROOT, '.cache', 'image');

export const USAGE = `Usage: npm run image [-- options]
       node scripts/image.ts [options]

Builds the container image from ./Dockerfile with docker (when its daemon answers) or podman.
Where the base image cannot be pulled, builds a stand-in base of the same name first (needs
root, debootstrap and the npm registry). Where the engine cannot start containers, --run
starts the image's file system under chroot, as its user, with its Env and Cmd (needs root).

Options:
  --tag NAME           the image's name (default mcp-toolkit:latest)
  --engine E           docker or podman (default: docker if its daemon answers, else podman)
  --stand-in           build the stand-in base even if the real one could be pulled
  --run                after building, start it on this machine's loopback only, as a local try:
                       http://127.0.0.1:<port>/mcp; without an MCP_AUTH setting, MCP_AUTH=none
                       is allowed there (MCP_ALLOW_PUBLIC_UNAUTHENTICATED=true in a container,
                       a loopback bind under chroot). Ctrl-C stops it
  --port N             with --run: the port on 127.0.0.1 (default 8000; 0 picks a free one)
  -e, --env NAME=VALUE with --run: a setting for the server (repeatable), as docker run -e
  --test               after building, run test/deploy/image-built.test.ts against the image
                       (skipped, exit 0, without an engine or root)
  --require            --test, and a missing engine, tool or root is an error (CI)
  --keep               with --run or --test: keep the exported file system in .cache/image/
  -h, --help           this text

Examples:
  npm run image
  npm run image -- --run
  npm run image -- --run -e MCP_AUTH=api_key -e MCP_API_KEYS="alice:$(openssl rand -hex 32)"`;

function say(line: string): void {
  process.stderr.write(`image: ${line}\n`);
}

/** A usage mistake: the message and the usage on stderr, exit 2. */
function usageError(message: string): never {
  process.stderr.write(`image: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function options() {
  try {
    return parseArgs({
      options: {
        tag: { type: 'string' },
        engine: { type: 'string' },
        'stand-in': { type: 'boolean', default: false },
        run: { type: 'boolean', default: false },
        port: { type: 'string' },
        env: { type: 'string', short: 'e', multiple: true },
        test: { type: 'boolean', default: false },
        require: { type: 'boolean', default: false },
        keep: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (err) {
    // Whatever else is on the line, --help answers with the usage.
    if (process.argv.includes('--help') || process.argv.includes('-h')) {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    return usageError((err as Error).message);
  }
}

const values = options();
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (values.engine !== undefined && values.engine !== 'docker' && values.engine !== 'podman') {
  usageError(`--engine ${values.engine}: expected docker or podman`);
}
const testing = values.test || values.require;
if (testing && values.run) usageError('--run and --test are separate: build and test, or build and run');
if (!values.run && (values.port !== undefined || values.env !== undefined)) {
  usageError('--port and -e apply to --run');
}
const port = values.port ?? '8000';
if (!/^\d+$/.test(port) || Number(port) > 65535)
  usageError(`--port ${port}: expected a port number (0 to 65535)`);
const settings: Record<string, string> = {};
for (const pair of values.env ?? []) {
  const eq = pair.indexOf('=');
  if (eq <= 0) usageError(`-e ${pair}: expected NAME=VALUE`);
  settings[pair.slice(0, eq)] = pair.slice(eq + 1);
}
// The test's image has a name of its own, so that parallel runs on one machine never share one.
const tag =
  values.tag ?? (testing ? `localhost/mcp-toolkit:image-test-${process.pid}` : 'mcp-toolkit:latest');
const isRoot = process.getuid?.() === 0;

/** A tool or permission this run needs and lacks: a skip for a plain --test, else an error. */
function lacking(why: string): never {
  if (testing && !values.require) {
    say(`skipped: ${why}. The image is built and tested by CI (.ci/run).`);
    process.exit(0);
  }
  say(why);
  process.exit(1);
}

const picked = pickEngine(values.engine);
if (typeof picked === 'string') lacking(picked);
const engine: Engine = picked;
if (testing) {
  const missing = ['chroot', 'mount', 'tar'].filter((c) => !has(c));
  if (missing.length > 0) lacking(`${missing.join(', ')} not installed`);
  if (!isRoot) lacking('not root (the image test runs its file system under chroot, with bind mounts)');
}

// Every base the Dockerfile names must be there: pulled, or else a stand-in of the same name.
const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
const bases = [
  ...new Set([...dockerfile.matchAll(/^FROM\s+(?:--\S+\s+)*(\S+)/gim)].map((m) => fullName(m[1]!))),
];
for (const base of bases) {
  if (imageExists(engine, base)) continue;
  if (!values['stand-in']) {
    say(`${engine.name} pull ${base}`);
    if (pull(engine, base)) continue;
    say(`${base} cannot be pulled: building a stand-in of the same name (scripts/image-stand-in.sh)`);
  }
  const standInNeeds = ['debootstrap', 'chroot', 'tar', 'npm'].filter((c) => !has(c));
  if (standInNeeds.length > 0 || !isRoot) {
    lacking(
      `the stand-in for ${base} needs root, debootstrap and npm (${standInNeeds.length > 0 ? `missing: ${standInNeeds.join(', ')}` : 'not root'}); or make ${base} reachable (docker pull, a registry mirror)`,
    );
  }
  const made = spawnSync('bash', [path.join(ROOT, 'scripts', 'image-stand-in.sh'), base], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, ENGINE: engine.name },
  });
  if (made.status !== 0) lacking(`the stand-in for ${base} could not be made (exit ${made.status})`);
}

const containers = canStartContainers(engine, bases.at(-1)!);
if (!containers.ok)
  say(`${engine.name} cannot start containers here (${containers.reason}): RUN steps use chroot isolation`);
say(`${engine.name} build -t ${tag}`);
const started = Date.now();
const built = runEngine(engine, buildArgs(engine, tag, !containers.ok), { cwd: ROOT });
if (built !== 0) {
  say(`${engine.name} build failed (exit ${built})`);
  process.exit(built ?? 1);
}
const inspected = inspectImage(engine, tag);
say(
  `built ${tag} in ${Math.round((Date.now() - started) / 1000)} s, ${(inspected.size / 1e6).toFixed(0)} MB`,
);

if (testing) process.exit(await test());
if (values.run) process.exit(await run());
say(
  `run it: npm run image -- --run   (or: ${engine.name} run --rm -p 127.0.0.1:8000:8000 -e MCP_ALLOW_PUBLIC_UNAUTHENTICATED=true ${tag})`,
);

/** Exports the image, runs its test file against it, cleans up; resolves the test's exit code. */
async function test(): Promise<number> {
  const work = path.join(CACHE, `test-${process.pid}`);
  const rootfs = path.join(work, 'rootfs');
  let unmount = () => {};
  try {
    exportRootfs(engine, tag, rootfs);
    unmount = mountSystem(rootfs);
    const descriptor = path.join(work, 'image.json');
    writeFileSync(
      descriptor,
      `${JSON.stringify({ tag, engine: engine.name, rootfs, ...inspected }, null, 2)}\n`,
    );
    say(`exported to ${rootfs}; running its tests`);
    const r = spawnSync(
      process.execPath,
      ['--test', '--test-reporter=spec', path.join('test', 'deploy', 'image-built.test.ts')],
      { cwd: ROOT, stdio: 'inherit', env: { ...process.env, MCP_TEST_IMAGE: descriptor } },
    );
    return r.status ?? 1;
  } finally {
    unmount();
    if (!values.keep && !removeTree(work))
      say(`left ${work} in place: still mounted (umount -R -l, then remove it)`);
    spawnSync(engine.name, ['rmi', tag], { stdio: 'ignore' });
  }
}

/** Starts the image (a container, else its file system under chroot) until it exits or is stopped. */
async function run(): Promise<number> {
  // The local try: no auth unless the user gives one, so it is reachable from loopback only.
  const auth = settings.MCP_AUTH !== undefined && settings.MCP_AUTH !== 'none';
  let child: ChildProcess;
  let cleanup = () => {};
  if (containers.ok) {
    const env = { ...(auth ? {} : { MCP_ALLOW_PUBLIC_UNAUTHENTICATED: 'true' }), ...settings };
    const inside = settings.MCP_HTTP_PORT ?? '8000';
    const name = `mcp-toolkit-run-${process.pid}`;
    const args = ['run', '--rm', '--name', name, '-p', `127.0.0.1:${port === '0' ? '' : port}:${inside}`];
    for (const [k, v] of Object.entries(env)) args.push('-e', `${k}=${v}`);
    say(`${engine.name} ${[...args, tag].join(' ')}`);
    child = spawn(engine.name, [...args, tag], { stdio: 'inherit' });
    void announce(engine, name, inside);
  } else {
    if (!isRoot)
      lacking(`${engine.name} cannot start containers here, and running the image's file system needs root`);
    const work = path.join(CACHE, `run-${process.pid}`);
    const rootfs = path.join(work, 'rootfs');
    exportRootfs(engine, tag, rootfs);
    const unmount = mountSystem(rootfs);
    cleanup = () => {
      unmount();
      if (!values.keep && !removeTree(work)) say(`left ${work} in place: still mounted`);
    };
    // The host's network: a loopback bind is what publishing on 127.0.0.1 is for a container.
    const env = { MCP_HTTP_HOST: '127.0.0.1', MCP_HTTP_PORT: port, ...settings };
    say(
      `running the file system of ${tag} under chroot as ${inspected.config.User || 'root'}, its Env and ${JSON.stringify(startCommand(inspected.config))} (settings: ${Object.keys(env).join(', ')})`,
    );
    child = spawn('chroot', chrootArgs(rootfs, inspected.config, startCommand(inspected.config), env), {
      stdio: 'inherit',
    });
  }
  // SIGTERM (a process manager, npm) is passed on: the server drains and exits, as on a
  // runtime's stop. Ctrl-C reaches the server from the terminal itself (its process group),
  // and a second signal would cut the drain short, so SIGINT is only waited out here.
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  process.on('SIGINT', () => {});
  const code = await new Promise<number>((resolve) => {
    child.once('exit', (status, signal) => resolve(status ?? (signal ? 128 : 1)));
    child.once('error', (err) => {
      say(err.message);
      resolve(1);
    });
  });
  cleanup();
  return code;
}

/** Says the host URL of a container published on a port picked at start (`-p 127.0.0.1::N`). */
async function announce(engine: Engine, name: string, inside: string): Promise<void> {
  for (let i = 0; i < 120; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const r = spawnSync(engine.name, ['port', name, `${inside}/tcp`], { encoding: 'utf8' });
    const hostPort = /:(\d+)\s*$/m.exec(r.stdout ?? '')?.[1];
    if (r.status === 0 && hostPort) {
      say(`serving on http://127.0.0.1:${hostPort}/mcp`);
      return;
    }
  }
}
