/**
 * The file operations behind the tools, the resource template and the prompt. Every one
 * goes through the sandbox first and opens leaves with O_NOFOLLOW (see sandbox.ts for the
 * race this narrows); every failure is a client-safe error naming the relative path.
 */
import { constants, type Dirent } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readdir } from 'node:fs/promises';
import path from 'node:path';
import { FileAccessError, FileErrorCode, fromFsError, shown } from './errors.ts';
import type { Sandbox } from './sandbox.ts';

/** Largest file read or written: 1 MiB, the default MCP_MAX_BODY_BYTES. */
export const MAX_FILE_BYTES = 1024 * 1024;
/** Most entries one listing returns (the rest is reported as truncated). */
export const MAX_LIST_ENTRIES = 1000;
/** The spec caps completion/complete at 100 values (server/utilities/completion). */
export const MAX_COMPLETIONS = 100;

export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface Entry {
  name: string;
  type: EntryType;
  size: number;
}

export interface Listing {
  path: string;
  entries: Entry[];
  truncated: boolean;
}

const byName = (a: { name: string }, b: { name: string }): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** Lists a folder, sorted by name (code-unit order, stable across locales); links not followed. */
export async function listFolder(sandbox: Sandbox, userPath: string): Promise<Listing> {
  const target = await sandbox.resolveExisting(userPath);
  let dirents: Dirent[];
  try {
    dirents = await readdir(target.real, { withFileTypes: true });
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOTDIR') {
      throw new FileAccessError(FileErrorCode.NotFolder, `${shown(userPath)} is a file: use read_file`);
    }
    throw fromFsError(err, userPath);
  }
  dirents.sort(byName);
  const kept = dirents.slice(0, MAX_LIST_ENTRIES);
  const entries = await Promise.all(
    kept.map(async (d): Promise<Entry> => {
      const type: EntryType = d.isSymbolicLink()
        ? 'symlink'
        : d.isDirectory()
          ? 'directory'
          : d.isFile()
            ? 'file'
            : 'other';
      let size = 0;
      if (type === 'file') {
        // A file removed between readdir and lstat is listed with size 0, not an error.
        size = await lstat(path.join(target.real, d.name)).then(
          (s) => s.size,
          () => 0,
        );
      }
      return { name: d.name, type, size };
    }),
  );
  return { path: target.path, entries, truncated: dirents.length > kept.length };
}

export interface TextFile {
  path: string;
  content: string;
  size: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads a UTF-8 text file of at most MAX_FILE_BYTES. */
export async function readTextFile(
  sandbox: Sandbox,
  userPath: string,
  signal?: AbortSignal,
): Promise<TextFile> {
  const target = await sandbox.resolveExisting(userPath);
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO must not hang the call; it is refused just below.
    handle = await open(target.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    throw fromFsError(err, userPath);
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) {
      throw new FileAccessError(FileErrorCode.IsFolder, `${shown(userPath)} is a folder: use list_files`);
    }
    if (!info.isFile()) {
      throw new FileAccessError(FileErrorCode.NotFile, `${shown(userPath)} is not a regular file`);
    }
    if (info.size > MAX_FILE_BYTES) throw tooLarge(userPath);
    // Read at most one byte past the cap: the file may grow after the stat.
    const buffer = Buffer.alloc(Math.min(info.size, MAX_FILE_BYTES) + 1);
    let length = 0;
    while (length < buffer.length) {
      signal?.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_FILE_BYTES) throw tooLarge(userPath);
    let content: string;
    try {
      content = utf8.decode(buffer.subarray(0, length));
    } catch {
      throw new FileAccessError(FileErrorCode.NotText, `${shown(userPath)} is not UTF-8 text`);
    }
    return { path: target.path, content, size: length };
  } catch (err) {
    throw err instanceof FileAccessError ? err : fromFsError(err, userPath);
  } finally {
    await handle.close();
  }
}

function tooLarge(userPath: string): FileAccessError {
  return new FileAccessError(
    FileErrorCode.TooLarge,
    `${shown(userPath)} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB, the most this plugin reads or writes at once`,
  );
}

export interface Written {
  path: string;
  bytes: number;
}

/** Writes (creates or replaces) a UTF-8 text file, creating missing parent folders inside the root. */
export async function writeTextFile(sandbox: Sandbox, userPath: string, content: string): Promise<Written> {
  const data = Buffer.from(content, 'utf8');
  if (data.length > MAX_FILE_BYTES) throw tooLarge(userPath);
  const target = await sandbox.resolveForWrite(userPath);
  try {
    await mkdir(path.dirname(target.real), { recursive: true });
    const handle = await open(
      target.real,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      0o644,
    );
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw fromFsError(err, userPath);
  }
  return { path: target.path, bytes: data.length };
}

/**
 * Completes a path: entries of the typed folder whose names start with the typed rest
 * (`notes/to` → `notes/today.md`, `notes/todo/`). Folders end with `/` so the next
 * completion continues inside. Hidden entries appear only once a `.` is typed. Anything
 * refused by the sandbox completes to nothing: completion never reports errors.
 */
export async function completePath(sandbox: Sandbox, typed: string): Promise<string[]> {
  const cut = typed.lastIndexOf('/');
  const folder = cut === -1 ? '' : typed.slice(0, cut + 1);
  const prefix = cut === -1 ? typed : typed.slice(cut + 1);
  try {
    const target = await sandbox.resolveExisting(folder === '' ? '.' : folder);
    const dirents = await readdir(target.real, { withFileTypes: true });
    return dirents
      .filter((d) => d.name.startsWith(prefix) && (prefix.startsWith('.') || !d.name.startsWith('.')))
      .sort(byName)
      .slice(0, MAX_COMPLETIONS)
      .map((d) => `${folder}${d.name}${d.isDirectory() ? '/' : ''}`);
  } catch {
    return [];
  }
}
