/**
 * Reading files of the skills folder so that a symbolic link cannot lead a read out of it.
 *
 * The rule (the same as the filesystem plugin's sandbox): open first, then check what was
 * opened. The file is opened (following links, so a link that stays inside the folder
 * works), and the real path of the open descriptor, read from `/proc/self/fd/<fd>` on Linux,
 * must lie inside the folder's real path; otherwise the read is refused. Checking the
 * descriptor rather than the path closes the race in which a folder is swapped for a link
 * between a check and the open. Where there is no /proc (macOS), the path's real path is
 * checked and must name the very file that was opened (same device and inode).
 *
 * Opened with O_NONBLOCK so a FIFO planted in the folder cannot hang the open; anything that
 * is not a regular file is refused after the open, and so is a file with more than one hard
 * link (as the filesystem plugin does by default): its other name may lie outside the folder,
 * and the descriptor's path only shows the name it was opened by.
 */
import { constants } from 'node:fs';
import { open, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { InternalCode, ToolkitError } from '../base/errors.ts';

/** Whether `real` is `root` or lies beneath it (both real paths). */
export function isInside(root: string, real: string): boolean {
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return real === root || real.startsWith(prefix);
}

function refused(shown: string, why: string): ToolkitError {
  return new ToolkitError(InternalCode.PathOutsideRoot, `${shown}: refused, ${why}`);
}

/** The real path of an open descriptor. */
async function realPathOf(fd: number, opened: string): Promise<{ real: string; viaProc: boolean }> {
  try {
    return { real: await readlink(`/proc/self/fd/${fd}`), viaProc: true };
  } catch {
    return { real: await realpath(opened), viaProc: false };
  }
}

/**
 * Reads `relative` (a `/`-separated path with no `..`) under `root` (a real path), refusing
 * anything whose opened file lies outside `root`, and anything larger than `maxBytes`.
 *
 * @example
 * const bytes = await readInside(await realpath('./skills'), 'pdf-forms/SKILL.md', 16 * 1024 * 1024);
 */
export async function readInside(root: string, relative: string, maxBytes: number): Promise<Buffer> {
  const segments = relative.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..') || relative.includes('\0')) {
    throw refused(relative, 'not a plain relative path');
  }
  const target = path.join(root, ...segments);
  const handle = await open(target, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const { real, viaProc } = await realPathOf(handle.fd, target);
    if (!isInside(root, real)) throw refused(relative, 'a symbolic link leads out of the skills folder');
    const info = await handle.stat();
    if (!viaProc) {
      const named = await stat(real);
      if (named.dev !== info.dev || named.ino !== info.ino)
        throw refused(relative, 'the file changed while opening');
    }
    if (!info.isFile()) throw refused(relative, 'not a regular file');
    // Another name of the same file may sit outside the folder: the opened path cannot tell.
    if (info.nlink > 1) throw refused(relative, 'it has more than one hard link');
    if (info.size > maxBytes) throw refused(relative, `larger than ${maxBytes} bytes`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
