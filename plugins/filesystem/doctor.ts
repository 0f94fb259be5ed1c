/**
 * Start-up checks of the filesystem root, for `mcp-toolkit doctor` and `/readyz`. Details
 * name the setting, never the host path: `/readyz` answers anyone who can reach it.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import type { DoctorCheck } from '@mcp-toolkit/server';

const ROOT = 'MCP_FILESYSTEM_ROOT';

/**
 * Checks that the root exists, is a folder, is readable, and is writable unless read-only.
 *
 * @example
 * const checks = await checkRoot({ root: './workspace', readOnly: false });
 * const healthy = checks.every((c) => c.ok);
 */
export async function checkRoot(settings: { root: string; readOnly: boolean }): Promise<DoctorCheck[]> {
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
        : { name: 'filesystem root is a folder', ok: false, detail: `${ROOT} names a file, not a folder` },
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
  return checks;
}

async function probe(root: string, mode: number, name: string, what: string): Promise<DoctorCheck> {
  try {
    await access(root, mode);
    return { name, ok: true };
  } catch {
    return { name, ok: false, detail: `${ROOT} is not ${what} by this process` };
  }
}
