/**
 * `mcp-toolkit install <client>`: adds this server to an MCP client's own configuration file.
 * A stdio entry runs this Node and this package's `mcp-toolkit` command by absolute path, in
 * the current folder (`run --cwd`), with the `MCP_*` settings given; an HTTP entry names a URL
 * and its headers. The file is merged (every other server and key stays as it was), the
 * previous file is kept as `<file>.bak`, and `--dry-run` prints the change instead.
 * Exit codes: 0 done, 2 a usage mistake or a file that is not plain JSON (left untouched).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLIENT_NAMES, CLIENTS, type Scope, type ServerSpec } from './clients.ts';
import { CliUsageError, parseCommand, USAGE } from './usage.ts';

export interface InstallIo {
  out(text: string): void;
  err(text: string): void;
}

export interface InstallOptions {
  /** Defaults: this machine's platform, the working directory, this Node and this package's bin. */
  platform?: NodeJS.Platform;
  cwd?: string;
  node?: string;
  bin?: string;
}

const BIN = fileURLToPath(new URL('../../bin/mcp-toolkit.js', import.meta.url));
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

type Json = Record<string, unknown>;

function pairs(flag: string, values: string[], separator: '=' | ':'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of values) {
    const at = raw.indexOf(separator);
    const key = at > 0 ? raw.slice(0, at).trim() : '';
    if (key === '') {
      throw new CliUsageError(
        'install',
        `--${flag} expects ${separator === '=' ? 'NAME=VALUE' : "'Name: value'"}, got "${raw}"`,
      );
    }
    if (flag === 'env' && !/^[A-Z_][A-Z0-9_]*$/.test(key)) {
      throw new CliUsageError('install', `--env ${key}: a variable name is upper-case letters, digits and _`);
    }
    out[key] = raw.slice(at + 1).trim();
  }
  return out;
}

/** The file as JSON, `{}` when absent; a file that does not parse is refused, never replaced. */
function readConfig(file: string): { config: Json; existed: boolean } {
  if (!existsSync(file)) return { config: {}, existed: false };
  const text = readFileSync(file, 'utf8');
  if (text.trim() === '') return { config: {}, existed: true };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CliUsageError(
      'install',
      `${file} is not plain JSON (${(err as Error).message}); it was left as it is: fix it, or add the entry by hand (--dry-run prints it)`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CliUsageError('install', `${file} does not hold a JSON object; it was left as it is`);
  }
  return { config: parsed as Json, existed: true };
}

/**
 * Runs `mcp-toolkit install`; resolves with the exit code.
 *
 * @example
 * process.exitCode = await installCommand(['cursor', '--dry-run'], process.env, { out, err });
 */
export async function installCommand(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: InstallIo,
  options: InstallOptions = {},
): Promise<number> {
  const parsed = parseCommand(
    'install',
    args,
    {
      name: { type: 'string' },
      env: { type: 'string', multiple: true },
      url: { type: 'string' },
      header: { type: 'string', multiple: true },
      scope: { type: 'string' },
      'dry-run': { type: 'boolean' },
    },
    true,
  );
  if (parsed.help) {
    io.out(`${USAGE.install}\n`);
    return 0;
  }
  const v = parsed.values as {
    name?: string;
    env?: string[];
    url?: string;
    header?: string[];
    scope?: string;
    'dry-run'?: boolean;
  };
  const [clientName, ...extra] = parsed.positionals;
  if (clientName === undefined || extra.length > 0) {
    throw new CliUsageError('install', `expected one client: ${CLIENT_NAMES.join(', ')}`);
  }
  const client = CLIENTS[clientName];
  if (!client) {
    throw new CliUsageError(
      'install',
      `unknown client "${clientName}": choose one of ${CLIENT_NAMES.join(', ')}`,
    );
  }
  const scope = (v.scope ?? client.scopes[0]) as Scope;
  if (!client.scopes.includes(scope)) {
    throw new CliUsageError(
      'install',
      `${client.label} has ${client.scopes.join(' and ')} configuration only, not --scope ${v.scope}`,
    );
  }
  const name = v.name ?? 'mcp-toolkit';
  if (!NAME_RE.test(name)) {
    throw new CliUsageError(
      'install',
      `--name "${name}": use letters, digits, ".", "_" and "-" (at most 64)`,
    );
  }
  if (v.url === undefined && (v.header?.length ?? 0) > 0) {
    throw new CliUsageError('install', '--header applies to an HTTP server: give --url too');
  }
  if (v.url !== undefined && (v.env?.length ?? 0) > 0) {
    throw new CliUsageError(
      'install',
      '--env sets the settings of a server the client starts; with --url the server runs elsewhere',
    );
  }
  if (v.url !== undefined && !/^https?:\/\//.test(v.url)) {
    throw new CliUsageError('install', `--url "${v.url}" is not an http:// or https:// URL`);
  }
  const cwd = options.cwd ?? process.cwd();
  const spec: ServerSpec =
    v.url !== undefined
      ? { kind: 'http', url: v.url, headers: pairs('header', v.header ?? [], ':') }
      : {
          kind: 'stdio',
          command: options.node ?? process.execPath,
          args: [options.bin ?? BIN, 'run', '--transport', 'stdio', '--cwd', cwd],
          env: pairs('env', v.env ?? [], '='),
        };
  const entry = client.entry(spec);
  if ('refused' in entry) throw new CliUsageError('install', String(entry.refused));

  const platform = options.platform ?? process.platform;
  const home = (platform === 'win32' ? env['USERPROFILE'] : env['HOME']) || homedir();
  const file = client.file(scope, { platform, home, cwd, env });
  const { config, existed } = readConfig(file);
  const servers = config[client.key];
  const section: Json =
    typeof servers === 'object' && servers !== null && !Array.isArray(servers) ? (servers as Json) : {};
  const replaced = name in section;
  const merged: Json = { ...config, [client.key]: { ...section, [name]: entry } };
  const change = JSON.stringify({ [client.key]: { [name]: entry } }, null, 2);

  if (v['dry-run'] === true) {
    io.out(
      `${file} (${client.label}, ${scope}) would get${replaced ? ', replacing the entry of that name' : ''}:\n${change}\n`,
    );
    io.out(
      existed
        ? 'Every other entry of the file would stay as it is. Nothing was written.\n'
        : 'The file does not exist yet. Nothing was written.\n',
    );
    return 0;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const backup = `${file}.bak`;
  if (existed) copyFileSync(file, backup);
  // Write beside the file, then rename: a crash never leaves the client half a file.
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(merged, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
  io.out(
    `${replaced ? 'Replaced' : 'Added'} the server "${name}" in ${client.label}'s configuration (${scope}): ${file}\n` +
      (existed ? `The previous file is kept as ${backup}.\n` : '') +
      `${client.next}\n`,
  );
  return 0;
}
