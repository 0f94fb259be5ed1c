/**
 * Checks of the filesystem root, for `mcp-toolkit doctor`, start-up and `/readyz`. Details
 * name the setting, never the host path: `/readyz` answers anyone who can reach it.
 *
 * Kinds (DoctorCheckKind): the root existing is a `dependency`: the plugin creates it at
 * start-up, so it fails only when it vanishes later (a volume unmounted), and /readyz is 503
 * until it is back. A root that is a file, or that this process cannot read or write, is
 * `config`: it cannot pass without a change, so start-up stops (exit code 2).
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import type { DoctorCheck } from '@mcp-toolkit/server';
import { descriptorPathsWork, PATH_MODE_WARNING } from './sandbox.ts';

const ROOT = 'MCP_FILESYSTEM_ROOT';

/**
 * Checks that the root exists, is a folder, is readable, and is writable unless read-only,
 * and says how the sandbox opens paths on this platform.
 *
 * @example
 * const checks = await checkRoot({ root: './workspace', readOnly: false });
 * const healthy = checks.every((c) => c.ok);
 */
export async function checkRoot(settings: {
  root: string;
  readOnly: boolean;
  allowHardlinks?: boolean;
}): Promise<DoctorCheck[]> {
  const root = path.resolve(settings.root);
  const checks: DoctorCheck[] = [];
  let isFolder = false;
  try {
    const info = await stat(root);
    checks.push({ name: 'filesystem root exists', ok: true });
    isFolder = info.isDirectory();
    checks.push(
      isFolder
        ? { name: 'filesystem root is a folder', ok: true }
        : {
            name: 'filesystem root is a folder',
            ok: false,
            kind: 'config',
            detail: `${ROOT} names a file, not a folder`,
          },
    );
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    checks.push({
      name: 'filesystem root exists',
      ok: false,
      detail:
        code === 'ENOENT'
          ? `${ROOT} does not exist yet (the server creates it at start-up)`
          : `${ROOT} cannot be inspected (${String(code ?? 'unknown error')})`,
    });
    return checks;
  }
  if (!isFolder) return checks;
  checks.push(await probe(root, constants.R_OK | constants.X_OK, 'filesystem root is readable', 'readable'));
  checks.push(
    settings.readOnly
      ? { name: 'filesystem root is writable', ok: true, detail: 'read-only mode: write_file is not offered' }
      : await probe(root, constants.W_OK | constants.X_OK, 'filesystem root is writable', 'writable'),
  );
  checks.push(sandboxCheck(root, settings.allowHardlinks ?? false));
  return checks;
}

/**
 * How paths are opened here. Never a failure: where the platform lacks /proc/self/fd the
 * sandbox still works, with the window the detail states.
 */
export function sandboxCheck(root: string, allowHardlinks: boolean): DoctorCheck {
  const hardlinks = allowHardlinks
    ? 'files with several hard links are served (MCP_FILESYSTEM_ALLOW_HARDLINKS=true)'
    : 'files with several hard links are refused';
  return {
    name: 'filesystem sandbox',
    ok: true,
    detail: descriptorPathsWork(root)
      ? `every path is opened one name at a time from the root's descriptor (/proc/self/fd), links checked before they are followed, so a local process swapping folders and links cannot redirect it; ${hardlinks}`
      : `${PATH_MODE_WARNING}; ${hardlinks}`,
  };
}

async function probe(root: string, mode: number, name: string, what: string): Promise<DoctorCheck> {
  try {
    await access(root, mode);
    return { name, ok: true };
  } catch {
    return { name, ok: false, kind: 'config', detail: `${ROOT} is not ${what} by this process` };
  }
}
