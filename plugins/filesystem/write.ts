/**
 * Writing a file inside a folder the sandbox has opened and verified: the content goes to a
 * new file created there with O_CREAT|O_EXCL|O_NOFOLLOW (nothing that already exists, a
 * link least of all, is opened for writing), which is checked and then renamed over the
 * name within that same folder. The rename replaces whatever holds the name at that
 * instant (a file, or a link or hard link swapped in by someone else) without writing
 * through it, so no byte lands outside the root, and readers see the old file or the new
 * one, never half of either.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, open, rename, unlink } from 'node:fs/promises';
import { fromFsError } from './errors.ts';
import type { Folder } from './walk.ts';

export interface WriteInFolder {
  readonly folder: Folder;
  /** The name to create or replace in `folder`. */
  readonly name: string;
  readonly data: Uint8Array;
  /** Permission bits of the file being replaced, kept; new files get 0644 less the umask. */
  readonly mode: number | undefined;
  join(folder: Folder, name: string): string;
  /** Throws when the opened file is not under the root (any more). */
  verify(handle: FileHandle, ref: string): Promise<void>;
  /** For messages: the path the client typed. */
  readonly userPath: string;
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Writes `data` as `name` in `folder`, atomically.
 *
 * @example
 * await writeInFolder({ folder, name: 'a.txt', data, mode: undefined, join, verify, userPath: 'a.txt' });
 */
export async function writeInFolder(options: WriteInFolder): Promise<void> {
  const { folder, name, data, mode, join, verify, userPath } = options;
  // Hidden and random, so it neither clashes with a client's name nor is guessed and raced.
  const temp = join(folder, `.mcp-write-${randomBytes(8).toString('hex')}.tmp`);
  let handle: FileHandle;
  try {
    handle = await open(temp, CREATE, mode ?? 0o644);
  } catch (err) {
    throw fromFsError(err, userPath);
  }
  let renamed = false;
  try {
    if (mode !== undefined) await handle.chmod(mode);
    await handle.writeFile(data);
    await verify(handle, temp);
    await rename(temp, join(folder, name));
    renamed = true;
  } catch (err) {
    throw fromFsError(err, userPath);
  } finally {
    await handle.close().catch(() => {});
    if (!renamed) await unlink(temp).catch(() => {});
  }
}
