/**
 * The file operations behind the tools, the resource template and the prompt. Every one
 * works on what the sandbox opened (a descriptor checked to be inside the root), never on
 * a path checked earlier (see sandbox.ts); every failure is a client-safe error naming the
 * relative path.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
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
  const folder = await sandbox.open(userPath);
  try {
    if (!folder.stats.isDirectory()) {
      throw new FileAccessError(
        FileErrorCode.NotFolder,
        folder.stats.isFile()
          ? `${shown(userPath)} is a file: use read_file`
          : `${shown(userPath)} is not a folder`,
      );
    }
    let dirents: Dirent[];
    try {
      // The opened folder itself (by descriptor on Linux), not whatever its name holds now.
      dirents = await readdir(folder.ref, { withFileTypes: true });
    } catch (err) {
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
          size = await lstat(path.join(folder.ref, d.name)).then(
            (s) => s.size,
            () => 0,
          );
        }
        return { name: d.name, type, size };
      }),
    );
    return { path: folder.path, entries, truncated: dirents.length > kept.length };
  } finally {
    await folder.close();
  }
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
  const file = await sandbox.open(userPath);
  try {
    const info = file.stats;
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
      const { bytesRead } = await file.handle.read(buffer, length, buffer.length - length, length);
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
    return { path: file.path, content, size: length };
  } catch (err) {
    throw fromFsError(err, userPath);
  } finally {
    await file.close();
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
  const { path: written } = await sandbox.writeFile(userPath, data);
  return { path: written, bytes: data.length };
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
    const opened = await sandbox.open(folder === '' ? '.' : folder);
    let dirents: Dirent[];
    try {
      dirents = opened.stats.isDirectory() ? await readdir(opened.ref, { withFileTypes: true }) : [];
    } finally {
      await opened.close();
    }
    return dirents
      .filter((d) => d.name.startsWith(prefix) && (prefix.startsWith('.') || !d.name.startsWith('.')))
      .sort(byName)
      .slice(0, MAX_COMPLETIONS)
      .map((d) => `${folder}${d.name}${d.isDirectory() ? '/' : ''}`);
  } catch {
    return [];
  }
}
