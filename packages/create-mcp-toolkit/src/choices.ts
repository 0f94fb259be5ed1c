/**
 * What `npm create mcp-toolkit` asks: the project's name, its transports, the auth mode, the
 * bundled plugins to serve beside the project's own and the deploy targets. Each has a flag;
 * `--yes` takes the defaults for whatever no flag gave. On a terminal the rest is asked, one
 * question at a time, the default shown; elsewhere (CI, a pipe) the defaults are taken and said.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';

export const TRANSPORTS = ['http', 'stdio', 'both'] as const;
export const AUTH_MODES = ['none', 'api_key', 'oauth'] as const;
/** The toolkit's bundled plugins a project may serve beside its own (the test fixture is not one). */
export const BUNDLED_PLUGINS = ['filesystem', 'openapi', 'proxy', 'result-cache', 'audit-log'] as const;
export const DEPLOY_TARGETS = ['docker', 'fly', 'k8s', 'mcpb', 'none'] as const;

export interface Choices {
  /** The folder to create (absolute). */
  dir: string;
  /** The npm package name (and the plugin's, without a scope). */
  name: string;
  /** The project's own plugin: the name's last part, as a plugin name. */
  plugin: string;
  transport: (typeof TRANSPORTS)[number];
  auth: (typeof AUTH_MODES)[number];
  plugins: (typeof BUNDLED_PLUGINS)[number][];
  deploy: Exclude<(typeof DEPLOY_TARGETS)[number], 'none'>[];
}

/** A usage mistake: printed with the usage, exit code 2. */
export class UsageError extends Error {}

export const USAGE = `Usage: npm create mcp-toolkit@latest <folder> [-- options]
       npx create-mcp-toolkit <folder> [options]

Creates an MCP server project that depends on @mcp-toolkit/server: its own plugin with a
TestClient test, a README, a CI workflow and the deploy files you choose.

Options:
  --name NAME            npm package name (default: the folder's name)
  --transport T          http, stdio or both (default both: npm start serves HTTP)
  --auth A               none, api_key or oauth (default none)
  --plugins P,Q          bundled plugins to serve too: ${BUNDLED_PLUGINS.join(', ')} (default none)
  --deploy D,E           ${DEPLOY_TARGETS.join(', ')} (default docker)
  -y, --yes              take the defaults for everything not given; ask nothing
  -h, --help             this text

Exit codes: 0 created, 2 a usage mistake (a bad value, a folder that is not empty).`;

const DEFAULTS = { transport: 'both', auth: 'none', plugins: [] as string[], deploy: ['docker'] } as const;

/** npm's rules for a new package name, scoped or not (lower case, URL-safe, 214 characters). */
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

function list<T extends string>(flag: string, value: string, allowed: readonly T[]): T[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const item of items) {
    if (!allowed.includes(item as T))
      throw new UsageError(`--${flag} ${item}: expected one or more of ${allowed.join(', ')}`);
  }
  return [...new Set(items)] as T[];
}

function one<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T))
    throw new UsageError(`--${flag} ${value}: expected one of ${allowed.join(', ')}`);
  return value as T;
}

/** `@acme/weather-mcp` → `weather-mcp`; a plugin name starts with a letter. */
export function pluginNameOf(name: string): string {
  const base = name
    .replace(/^@[^/]+\//, '')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+$/, '')
    .slice(0, 40);
  return base === '' ? 'server' : base;
}

export interface Io {
  out(text: string): void;
  isTTY: boolean;
  input: NodeJS.ReadableStream;
}

async function ask(
  io: Io,
  question: string,
  fallback: string,
  check: (answer: string) => string,
): Promise<string> {
  const rl = createInterface({ input: io.input, output: process.stdout });
  try {
    for (;;) {
      const answer = (await rl.question(`${question} (${fallback}): `)).trim() || fallback;
      try {
        return check(answer);
      } catch (err) {
        io.out(`${(err as Error).message}\n`);
      }
    }
  } finally {
    rl.close();
  }
}

/**
 * The choices from the arguments, asking on a terminal for what they leave open.
 *
 * @example
 * const choices = await resolveChoices(['demo', '--yes'], process.cwd(), io);
 */
export async function resolveChoices(
  argv: readonly string[],
  cwd: string,
  io: Io,
): Promise<Choices | 'help'> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        transport: { type: 'string' },
        auth: { type: 'string' },
        plugins: { type: 'string' },
        deploy: { type: 'string' },
        yes: { type: 'boolean', short: 'y' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const v = parsed.values as Record<string, string | boolean | undefined>;
  if (v.help) return 'help';
  if (parsed.positionals.length > 1)
    throw new UsageError(`one folder, not ${parsed.positionals.length}: ${parsed.positionals.join(' ')}`);
  const interactive = io.isTTY && v.yes !== true;
  if (!io.isTTY && v.yes !== true)
    io.out('No terminal to ask on: taking the defaults for what the flags leave open (--help lists them).\n');
  const pick = async (flag: string, question: string, fallback: string, check: (s: string) => string) => {
    const given = v[flag];
    if (typeof given === 'string') return check(given);
    return interactive ? ask(io, question, fallback, check) : check(fallback);
  };
  let folder = parsed.positionals[0];
  if (folder === undefined) {
    if (!interactive)
      throw new UsageError('name the folder to create: npm create mcp-toolkit@latest my-server');
    folder = await ask(io, 'Folder to create', 'my-mcp-server', (s) => s);
  }
  const dir = path.resolve(cwd, folder);
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new UsageError(`${dir} exists and is not empty: choose a new folder`);
  const checkName = (s: string) => {
    if (!PACKAGE_NAME.test(s) || s.length > 214)
      throw new UsageError(
        `"${s}" is not an npm package name (lower case letters, digits, - . _ ~; @scope/ allowed)`,
      );
    return s;
  };
  const name = checkName(typeof v.name === 'string' ? v.name : path.basename(dir).toLowerCase());
  const transport = one(
    'transport',
    await pick('transport', `Transports (${TRANSPORTS.join('/')})`, DEFAULTS.transport, (s) =>
      one('transport', s, TRANSPORTS),
    ),
    TRANSPORTS,
  );
  const auth = one(
    'auth',
    await pick('auth', `Auth (${AUTH_MODES.join('/')})`, DEFAULTS.auth, (s) => one('auth', s, AUTH_MODES)),
    AUTH_MODES,
  );
  const plugins = list(
    'plugins',
    await pick('plugins', `Bundled plugins to serve too (${BUNDLED_PLUGINS.join(',')})`, 'none', (s) =>
      s === 'none' ? '' : list('plugins', s, BUNDLED_PLUGINS).join(','),
    ),
    BUNDLED_PLUGINS,
  );
  const deploy = list(
    'deploy',
    await pick('deploy', `Deploy targets (${DEPLOY_TARGETS.join(',')})`, DEFAULTS.deploy.join(','), (s) =>
      list('deploy', s, DEPLOY_TARGETS).join(','),
    ),
    DEPLOY_TARGETS,
  ).filter((d) => d !== 'none') as Choices['deploy'];
  // Fly.io and Kubernetes run the container image.
  if ((deploy.includes('fly') || deploy.includes('k8s')) && !deploy.includes('docker'))
    deploy.unshift('docker');
  return { dir, name, plugin: pluginNameOf(name), transport, auth, plugins, deploy };
}
