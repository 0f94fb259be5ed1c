/**
 * The security core of the filesystem plugin: opens a path typed by a client so that what
 * is opened is provably inside the root, or refuses it. It opens first and checks what it
 * opened; it never checks a path and opens it later (a local process could swap a folder
 * for a symbolic link in between).
 *
 * How, on Linux: the root is opened as a folder, then every component is opened relative to
 * the folder opened before it, through `/proc/self/fd/<fd>/<name>` (the kernel resolves the
 * `fd` part to that very folder, whatever its name is now), with O_NOFOLLOW, so no symbolic
 * link is ever followed by the kernel. A link met on the way is read and its target walked
 * by the same rules: a target that leaves the root is refused before anything it names is
 * touched, so the answer is the same whether or not the target exists (no probing of host
 * files). Finally the opened descriptor's own path (`/proc/self/fd/<fd>`) must lie under
 * the root, which also catches a folder moved out of the root mid-walk. Where there is no
 * `/proc/self/fd` (macOS, the BSDs, Windows), the same walk runs on real path strings and
 * the result is checked against a fresh `lstat`/`realpath`; a swap between two steps can
 * still redirect one operation there (docs/security.md states it, and so does the doctor).
 *
 * Rules, each pinned by test/plugins/filesystem/sandbox.test.ts:
 * - Paths are relative to the root; absolute paths are refused, whatever they name (the
 *   root's host path is never shown to clients, and the official server-filesystem refuses
 *   anything outside its folders too). NUL bytes are refused.
 * - `..` in the client's path is resolved lexically first (`a/../../x` is refused before
 *   touching the disk); `..` inside a link's target goes up the folders actually walked.
 * - Links that stay inside are followed (at most 40, like Linux); an absolute link target
 *   must name the root by its real path.
 * - A regular file with more than one hard link may be another name of a file outside the
 *   root: it is refused unless `allowHardlinks` (MCP_FILESYSTEM_ALLOW_HARDLINKS) is set.
 */
import { closeSync, constants, openSync, readlinkSync, type Stats } from 'node:fs';
import { type FileHandle, lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { InternalCode, ToolkitError } from '@mcp-toolkit/server';
import { FileAccessError, FileErrorCode, fromFsError, shown } from './errors.ts';
import { createWalker, type Folder } from './walk.ts';
import { writeInFolder } from './write.ts';

/** An entry opened inside the root: a file, a folder or anything else, links resolved. */
export interface OpenedEntry {
  /** The requested path relative to the root, with `/` separators (`.` for the root). */
  readonly path: string;
  readonly handle: FileHandle;
  /** Taken from the open descriptor. */
  readonly stats: Stats;
  /**
   * A path naming this very entry for calls that need one (`readdir`): `/proc/self/fd/<fd>`
   * on Linux, the real path elsewhere. Valid until `close()`.
   */
  readonly ref: string;
  close(): Promise<void>;
}

/** How paths are opened: `descriptor` cannot be raced; `path` leaves a window (see above). */
export type SandboxMode = 'descriptor' | 'path';

export interface Sandbox {
  /** The root's real path (never shown to clients). */
  readonly root: string;
  readonly mode: SandboxMode;
  readonly allowHardlinks: boolean;
  /** Opens an existing entry inside the root; the caller closes it. */
  open(userPath: string): Promise<OpenedEntry>;
  /**
   * Creates or replaces a regular file inside the root with `data`, creating missing
   * folders. The new content is written to a fresh file in the verified folder and renamed
   * over the name, so readers never see half a file and another hard link of the old file
   * (when allowed) keeps its content.
   */
  writeFile(userPath: string, data: Uint8Array): Promise<{ path: string }>;
}

export interface SandboxOptions {
  /** Serve regular files that have more than one hard link (default false). */
  allowHardlinks?: boolean;
  /** Force a mode (tests); by default `descriptor` wherever `/proc/self/fd` works. */
  mode?: SandboxMode;
}

const PROC_FD = '/proc/self/fd/';

/** What the doctor and the start-up log say where the sandbox works by path (`path` mode). */
export const PATH_MODE_WARNING =
  'no /proc/self/fd here, so the filesystem sandbox walks real path strings and checks each result after opening it: a local process that swaps a folder under the root for a symbolic link between two steps could still redirect one operation (docs/security.md)';

/**
 * Whether descriptors can be named through `/proc/self/fd` here: true when opening `dir`
 * and reading its descriptor's link gives back `dir`'s real path.
 *
 * @example
 * descriptorPathsWork('/srv/workspace'); // true on Linux with /proc mounted
 */
export function descriptorPathsWork(dir: string): boolean {
  if (process.platform === 'win32') return false;
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    return readlinkSync(`${PROC_FD}${fd}`) === path.resolve(dir);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Creates the sandbox for a root that already exists and is given as its real path
 * (`fs.realpath` once at start-up), so every later comparison is between real paths.
 *
 * @example
 * const sandbox = createSandbox(await realpath('./workspace'));
 * const entry = await sandbox.open('notes/today.md');
 * try { logger.info({ size: entry.stats.size }); } finally { await entry.close(); }
 */
export function createSandbox(rootRealPath: string, options: SandboxOptions = {}): Sandbox {
  if (!path.isAbsolute(rootRealPath)) {
    throw new ToolkitError(InternalCode.InvalidSetting, 'The sandbox root must be an absolute real path');
  }
  const root = path.resolve(rootRealPath);
  const rootPrefix = root.endsWith(path.sep) ? root : root + path.sep;
  const allowHardlinks = options.allowHardlinks ?? false;
  const mode: SandboxMode = options.mode ?? (descriptorPathsWork(root) ? 'descriptor' : 'path');
  const byDescriptor = mode === 'descriptor';

  const inside = (real: string): boolean => real === root || real.startsWith(rootPrefix);

  /** What a refused escape says, the same for every way out (no hint of what lies beyond). */
  const escaped = (userPath: string): ToolkitError =>
    new ToolkitError(
      InternalCode.PathOutsideRoot,
      `${shown(userPath)} is outside the root (a symbolic link or folder on the way leads out of it)`,
    );

  /** Syntax and lexical checks, no disk access: the components under the root. */
  const lexical = (userPath: string): string[] => {
    if (typeof userPath !== 'string') {
      throw new FileAccessError(FileErrorCode.InvalidPath, 'The path must be a string');
    }
    if (userPath.includes('\0')) {
      throw new FileAccessError(FileErrorCode.InvalidPath, 'The path contains a NUL byte');
    }
    if (path.isAbsolute(userPath)) {
      // Not echoed: an absolute path may itself be host layout.
      throw new ToolkitError(
        InternalCode.PathOutsideRoot,
        'Absolute paths are refused: give a path relative to the root (e.g. "notes/today.md")',
      );
    }
    const resolved = path.resolve(root, userPath === '' ? '.' : userPath);
    if (!inside(resolved)) {
      throw new ToolkitError(InternalCode.PathOutsideRoot, `${shown(userPath)} is outside the root`);
    }
    return resolved === root ? [] : resolved.slice(rootPrefix.length).split(path.sep);
  };

  const shownPath = (parts: string[]): string => (parts.length === 0 ? '.' : parts.join('/'));

  /**
   * Checks an opened descriptor is under the root now. By descriptor: its own path, from
   * the kernel. By path: the real path of its name, and that the name still leads to it.
   */
  const verify = async (handle: FileHandle, ref: string, userPath: string): Promise<void> => {
    try {
      if (byDescriptor) {
        if (!inside(await readlink(`${PROC_FD}${handle.fd}`))) throw escaped(userPath);
        return;
      }
      const [real, now, opened] = await Promise.all([realpath(ref), lstat(ref), handle.stat()]);
      if (!inside(real) || now.ino !== opened.ino || now.dev !== opened.dev) throw escaped(userPath);
    } catch (err) {
      throw err instanceof ToolkitError ? err : fromFsError(err, userPath);
    }
  };

  const walker = createWalker({
    root,
    rootPrefix,
    refOf: (handle: FileHandle, name: string): string => (byDescriptor ? `${PROC_FD}${handle.fd}` : name),
    join: (folder: Folder, name: string): string => path.join(folder.ref, name),
    escaped,
  });

  const refuseHardLinked = (stats: Stats, userPath: string): void => {
    if (!allowHardlinks && stats.isFile() && stats.nlink > 1) {
      throw new FileAccessError(
        FileErrorCode.HardLinked,
        `${shown(userPath)} has more than one hard link, so it may also be a file outside the root; refused (MCP_FILESYSTEM_ALLOW_HARDLINKS=true allows it)`,
      );
    }
  };

  return Object.freeze({
    root,
    mode,
    allowHardlinks,

    async open(userPath: string): Promise<OpenedEntry> {
      const parts = lexical(userPath);
      const walked = await walker.walk(userPath, parts, false);
      try {
        const entry = walked.entry;
        if (entry === undefined)
          throw new FileAccessError(FileErrorCode.NotFound, `${shown(userPath)} does not exist`);
        await verify(entry.handle, entry.ref, userPath);
        refuseHardLinked(entry.stats, userPath);
        return { path: shownPath(parts), ...entry, close: walked.close };
      } catch (err) {
        await walked.close();
        throw err;
      }
    },

    async writeFile(userPath: string, data: Uint8Array): Promise<{ path: string }> {
      const parts = lexical(userPath);
      if (parts.length === 0 || userPath.endsWith('/')) {
        // `notes/` would otherwise write a file called `notes`: surely not what was meant.
        throw new FileAccessError(
          FileErrorCode.IsFolder,
          `${shown(userPath)} names a folder: give a file name`,
        );
      }
      const walked = await walker.walk(userPath, parts, true);
      try {
        const { entry, parent, name } = walked;
        if (entry !== undefined) {
          if (entry.stats.isDirectory()) {
            throw new FileAccessError(FileErrorCode.IsFolder, `${shown(userPath)} is a folder, not a file`);
          }
          if (!entry.stats.isFile()) {
            throw new FileAccessError(FileErrorCode.NotFile, `${shown(userPath)} is not a regular file`);
          }
          refuseHardLinked(entry.stats, userPath);
        }
        if (parent === undefined || name === undefined) {
          throw new FileAccessError(
            FileErrorCode.IsFolder,
            `${shown(userPath)} names a folder: give a file name`,
          );
        }
        await verify(parent.handle, parent.ref, userPath);
        await writeInFolder({
          folder: parent,
          name,
          data,
          mode: entry === undefined ? undefined : entry.stats.mode & 0o777,
          join: walker.join,
          verify: (handle, ref) => verify(handle, ref, userPath),
          userPath,
        });
        return { path: shownPath(parts) };
      } finally {
        await walked.close();
      }
    },
  });
}
