/**
 * The container engine `npm run image` builds with: the user's Docker when its daemon answers,
 * else podman. Each question is asked of the engine itself (`docker info`, `image inspect`,
 * `pull`, `run ... true`), so a machine that cannot reach a registry, or cannot start
 * containers (podman's OCI runtime refused its rlimits, as on our CI machines), is found out
 * in a second instead of half-way through a build.
 */
import { type SpawnSyncOptions, spawnSync } from 'node:child_process';

export type EngineName = 'docker' | 'podman';

export interface Engine {
  readonly name: EngineName;
}

/** Whether `command` is on PATH. */
export function has(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** Runs an engine command quietly: its exit, its stdout, and both streams for a message. */
function quiet(
  engine: Engine,
  args: string[],
  timeout = 60_000,
): { ok: boolean; stdout: string; output: string } {
  const r = spawnSync(engine.name, args, {
    encoding: 'utf8',
    timeout,
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout = r.stdout ?? '';
  return { ok: r.status === 0, stdout, output: `${stdout}${r.stderr ?? ''}`.trim() };
}

/**
 * The engine to use: the one asked for, or Docker when its daemon answers, else podman. A
 * string says why none can be used, and what to install.
 */
export function pickEngine(wanted: string | undefined): Engine | string {
  if (wanted !== undefined && wanted !== 'docker' && wanted !== 'podman') {
    return `--engine ${wanted}: expected docker or podman`;
  }
  const dockerAnswers = () => has('docker') && quiet({ name: 'docker' }, ['info'], 30_000).ok;
  if (wanted === 'docker') {
    return dockerAnswers()
      ? { name: 'docker' }
      : 'docker is not installed or its daemon does not answer (`docker info` fails): start it, or use --engine podman';
  }
  if (wanted === 'podman') return has('podman') ? { name: 'podman' } : 'podman is not installed';
  if (dockerAnswers()) return { name: 'docker' };
  if (has('podman')) return { name: 'podman' };
  return has('docker')
    ? "docker's daemon does not answer (`docker info` fails) and podman is not installed: start Docker, or install podman (Debian: apt-get install podman)"
    : 'neither docker nor podman is installed: install one (Debian: apt-get install podman)';
}

/** The name an engine stores a Docker Hub image under: `node:24-slim` → `docker.io/library/node:24-slim`. */
export function fullName(image: string): string {
  const first = image.split('/')[0]!;
  if (!image.includes('/')) return `docker.io/library/${image}`;
  return first.includes('.') || first.includes(':') || first === 'localhost' ? image : `docker.io/${image}`;
}

/** Whether the engine has the image locally. */
export function imageExists(engine: Engine, image: string): boolean {
  return quiet(engine, ['image', 'inspect', image]).ok;
}

/** Pulls the image, its progress shown; false when no registry can be reached (or it is not there). */
export function pull(engine: Engine, image: string): boolean {
  const r = spawnSync(engine.name, ['pull', image], {
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 600_000,
  });
  return r.status === 0;
}

/**
 * Whether the engine can start a container of `image` here: `run --rm --network=none image true`.
 * The reason is the engine's own message when it cannot.
 */
export function canStartContainers(
  engine: Engine,
  image: string,
): { ok: true } | { ok: false; reason: string } {
  const r = quiet(engine, ['run', '--rm', '--network=none', image, 'true']);
  return r.ok ? { ok: true } : { ok: false, reason: r.output.split('\n').at(-1) || 'no message' };
}

/**
 * `build` arguments. podman keeps HEALTHCHECK only in the Docker format (OCI drops it); where
 * it cannot start containers its RUN steps run with chroot isolation and the host's network.
 */
export function buildArgs(engine: Engine, tag: string, chroot: boolean): string[] {
  if (engine.name === 'docker') return ['build', '-t', tag, '.'];
  return [
    'build',
    ...(chroot ? ['--isolation=chroot', '--network=host'] : []),
    '--format',
    'docker',
    '-t',
    tag,
    '.',
  ];
}

/** Runs an engine command with its output shown; resolves its exit status (null: killed). */
export function runEngine(engine: Engine, args: string[], options: SpawnSyncOptions = {}): number | null {
  const r = spawnSync(engine.name, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (r.error) throw r.error;
  return r.status;
}

/** What `image inspect` says of a built image: its size, Config, and HEALTHCHECK. */
export interface Inspected {
  readonly size: number;
  readonly config: ImageConfig;
  readonly healthcheck?: { readonly Test?: string[] } | undefined;
}

/** The parts of an image's Config a runtime starts it with. */
export interface ImageConfig {
  readonly User: string;
  readonly Env: string[];
  readonly WorkingDir: string;
  readonly Cmd: string[];
  readonly Entrypoint?: string[] | null;
}

/** Reads a built image's size and Config (Docker keeps the health check in Config, podman beside it). */
export function inspectImage(engine: Engine, tag: string): Inspected {
  const r = quiet(engine, ['image', 'inspect', tag]);
  if (!r.ok) throw new Error(`${engine.name} image inspect ${tag}: ${r.output}`);
  const [found] = JSON.parse(r.stdout) as [
    {
      Size: number;
      Config: ImageConfig & { Healthcheck?: { Test?: string[] } };
      Healthcheck?: { Test?: string[] };
    },
  ];
  if (!found) throw new Error(`${engine.name} image inspect ${tag} printed nothing`);
  return {
    size: found.Size,
    config: found.Config,
    healthcheck: found.Healthcheck ?? found.Config.Healthcheck,
  };
}
