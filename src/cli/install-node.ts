/**
 * Which Node a client's stdio entry runs. `node` from the PATH the client starts with survives
 * a Node upgrade or move, where an absolute path to one installation does not; the note tells
 * the user which Node that PATH finds here, or why the entry names an absolute path.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Where `node` is on `env`'s PATH (the first executable file of that name), or undefined.
 *
 * @example
 * nodeOnPath(process.env, process.platform); // '/usr/local/bin/node'
 */
export function nodeOnPath(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
): string | undefined {
  const names = platform === 'win32' ? ['node.exe', 'node.cmd', 'node'] : ['node'];
  const separator = platform === 'win32' ? ';' : ':';
  const dirs = (env['PATH'] ?? env['Path'] ?? '').split(separator).filter((d) => d !== '');
  for (const dir of dirs) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        if (statSync(candidate).isFile()) return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/**
 * What `install`'s output says about the command a stdio entry runs: `node` from PATH (and
 * which Node that is here), or an absolute path and why.
 *
 * @example
 * io.out(nodeNote('node', '', process.env, process.platform));
 */
export function nodeNote(
  command: string,
  why: string,
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
): string {
  if (command !== 'node') {
    return `The entry runs Node by its absolute path, ${command}: ${why}. Run install again after upgrading or moving Node.\n`;
  }
  const found = nodeOnPath(env, platform);
  const same = found !== undefined && realpathOr(found) === realpathOr(process.execPath);
  return (
    'The entry runs `node` from the PATH the client starts with, so it keeps working after a Node upgrade' +
    (found === undefined
      ? '; but no `node` is on this PATH now: install Node 22.18 or later there, or use --absolute-node'
      : same
        ? ` (here ${found})`
        : ` (here ${found}, not the Node running this command, ${process.execPath}: it must be Node 22.18 or later, or use --absolute-node)`) +
    '.\n'
  );
}

function realpathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}
