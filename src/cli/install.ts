/**
 * `mcp-toolkit install <client>`: adds this server to an MCP client's own configuration file.
 * A stdio entry runs `node` from the PATH the client starts with (so an upgraded or moved
 * Node keeps working) and this package's `mcp-toolkit` command by absolute path, in the
 * current folder (`run --cwd`), with the `MCP_*` settings given; this Node's absolute path
 * only with `--absolute-node`, or for a client known to start servers without the user's
 * PATH, and the output says which and why. An HTTP entry names a URL and its headers. The file is merged (every other server and key stays as it was), the
 * previous file is kept as `<file>.bak`, and `--dry-run` prints the change instead.
 * Secrets stay out of the file: a credential header and an `--env` whose name looks secret
 * (KEY, TOKEN, SECRET, PASSWORD) are written as the client's own placeholder, and the
 * command says which variable to set; `--plain-secret` writes the value itself, into a
 * user's file only (a project's file is meant to be committed). VS Code's JSONC is edited in
 * place, its comments kept. Exit codes: 0 done, 2 a usage mistake or a file that does not
 * parse (left untouched).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  applyEdits,
  type FormattingOptions,
  modify,
  type ParseError,
  parse,
  printParseErrorCode,
} from 'jsonc-parser';
import { CLIENT_NAMES, CLIENTS, type ClientInfo, type Scope, type ServerSpec } from './clients.ts';
import { nodeNote } from './install-node.ts';
import { placeholders, secretNotes } from './install-secrets.ts';
import { CliUsageError, parseCommand, USAGE } from './usage.ts';

export interface InstallIo {
  out(text: string): void;
  err(text: string): void;
}

export interface InstallOptions {
  /**
   * Defaults: this machine's platform, the working directory, this Node's absolute path (for
   * `--absolute-node`) and this package's bin.
   */
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

const FORMAT: FormattingOptions = { insertSpaces: true, tabSize: 2, eol: '\n' };

/**
 * The file's text and value, `{}` when absent; strict JSON, or JSONC (comments, trailing
 * commas) for a client whose files are. A file that does not parse is refused, never replaced.
 */
function readConfig(file: string, jsonc: boolean): { config: Json; existed: boolean; text: string } {
  if (!existsSync(file)) return { config: {}, existed: false, text: '' };
  const text = readFileSync(file, 'utf8');
  if (text.trim() === '') return { config: {}, existed: true, text };
  let parsed: unknown;
  if (jsonc) {
    const errors: ParseError[] = [];
    parsed = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
    const first = errors[0];
    if (first) {
      throw new CliUsageError(
        'install',
        `${file} is not valid JSONC (${printParseErrorCode(first.error)} at offset ${first.offset}); it was left as it is: fix it, or add the entry by hand (--dry-run prints it)`,
      );
    }
  } else {
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new CliUsageError(
        'install',
        `${file} is not plain JSON (${(err as Error).message}); it was left as it is: fix it, or add the entry by hand (--dry-run prints it)`,
      );
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CliUsageError('install', `${file} does not hold a JSON object; it was left as it is`);
  }
  return { config: parsed as Json, existed: true, text };
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The new file. Strict JSON is written whole (every other key as it was); JSONC is edited in
 * place, so its comments and layout stay: the entry set, and each input replaced by id or
 * appended.
 */
function render(
  client: ClientInfo,
  read: { config: Json; text: string },
  name: string,
  entry: Json,
  inputs: Json[],
): string {
  const { config } = read;
  const section = config[client.key];
  if (!client.jsonc) {
    const merged: Json = {
      ...config,
      [client.key]: { ...(isObject(section) ? section : {}), [name]: entry },
    };
    return `${JSON.stringify(merged, null, 2)}\n`;
  }
  let text = read.text.trim() === '' ? '{}\n' : read.text;
  const edit = (path: (string | number)[], value: unknown, isArrayInsertion = false) => {
    text = applyEdits(text, modify(text, path, value, { formattingOptions: FORMAT, isArrayInsertion }));
  };
  if (isObject(section)) edit([client.key, name], entry);
  else edit([client.key], { [name]: entry });
  if (inputs.length > 0) {
    const existing = Array.isArray(config['inputs']) ? (config['inputs'] as unknown[]) : undefined;
    if (!existing) edit(['inputs'], inputs);
    else {
      for (const input of inputs) {
        const at = existing.findIndex((i) => isObject(i) && i['id'] === input['id']);
        if (at >= 0) edit(['inputs', at], input);
        else edit(['inputs', -1], input, true);
      }
    }
  }
  return text.endsWith('\n') ? text : `${text}\n`;
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
      'plain-secret': { type: 'boolean' },
      'absolute-node': { type: 'boolean' },
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
    'plain-secret'?: boolean;
    'absolute-node'?: boolean;
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
  if (v.url !== undefined && v['absolute-node'] === true) {
    throw new CliUsageError(
      'install',
      '--absolute-node names the Node a client starts; with --url the server runs elsewhere',
    );
  }
  if (v.url !== undefined && !/^https?:\/\//.test(v.url)) {
    throw new CliUsageError('install', `--url "${v.url}" is not an http:// or https:// URL`);
  }
  const plain = v['plain-secret'] === true;
  if (plain && scope === 'project') {
    throw new CliUsageError(
      'install',
      "--plain-secret writes secrets into a user's own file only: a project file (--scope project) is meant to be committed, so it gets placeholders; leave out --plain-secret, or use --scope user",
    );
  }
  const cwd = options.cwd ?? process.cwd();
  const platform = options.platform ?? process.platform;
  const why = v['absolute-node'] === true ? 'you asked for it with --absolute-node' : client.withoutShellPath;
  const command = why === undefined ? 'node' : (options.node ?? process.execPath);
  const given: ServerSpec =
    v.url !== undefined
      ? { kind: 'http', url: v.url, headers: pairs('header', v.header ?? [], ':') }
      : {
          kind: 'stdio',
          command,
          args: [options.bin ?? BIN, 'run', '--transport', 'stdio', '--cwd', cwd],
          env: pairs('env', v.env ?? [], '='),
        };
  const protectedSpec = placeholders(given, client, name);
  const { secrets } = protectedSpec;
  if (secrets.length > 0 && !plain && !client.secrets) {
    throw new CliUsageError(
      'install',
      `${client.label}'s file has no placeholder for a value it does not hold, so ${secrets.map((s) => s.given).join(', ')} would be written into it as given: add --plain-secret to accept that (the file is yours alone), or leave the secret out and set it another way`,
    );
  }
  const spec = plain ? given : protectedSpec.spec;
  const inputs = plain ? [] : protectedSpec.inputs;
  const entry = client.entry(spec);
  if ('refused' in entry) throw new CliUsageError('install', String(entry.refused));

  const home = (platform === 'win32' ? env['USERPROFILE'] : env['HOME']) || homedir();
  const file = client.file(scope, { platform, home, cwd, env });
  const read = readConfig(file, client.jsonc === true);
  const { config, existed } = read;
  const servers = config[client.key];
  const replaced = isObject(servers) && name in servers;
  const change = JSON.stringify(
    { [client.key]: { [name]: entry }, ...(inputs.length > 0 ? { inputs } : {}) },
    null,
    2,
  );
  const notes =
    secretNotes(client, secrets, plain, file) +
    (given.kind === 'stdio' ? nodeNote(command, why ?? '', env, platform) : '');

  if (v['dry-run'] === true) {
    io.out(
      `${file} (${client.label}, ${scope}) would get${replaced ? ', replacing the entry of that name' : ''}:\n${change}\n`,
    );
    io.out(
      existed
        ? 'Every other entry of the file would stay as it is. Nothing was written.\n'
        : 'The file does not exist yet. Nothing was written.\n',
    );
    io.out(notes);
    return 0;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const backup = `${file}.bak`;
  if (existed) copyFileSync(file, backup);
  // Write beside the file, then rename: a crash never leaves the client half a file.
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, render(client, read, name, entry, inputs), { mode: 0o600 });
  renameSync(temp, file);
  io.out(
    `${replaced ? 'Replaced' : 'Added'} the server "${name}" in ${client.label}'s configuration (${scope}): ${file}\n` +
      (existed ? `The previous file is kept as ${backup}.\n` : '') +
      notes +
      `${client.next}\n`,
  );
  return 0;
}
