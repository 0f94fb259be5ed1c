/**
 * The security core of the filesystem plugin: turns a path typed by a client into a real
 * path that is provably inside the root, or refuses it.
 *
 * Rules, each pinned by test/plugins/filesystem/sandbox.test.ts:
 * - Paths are relative to the root. Absolute paths are refused, whatever they name: the
 *   root's host path is never shown to clients, so a legitimate client has no way to know
 *   it, and silently reading `/etc/passwd` as `<root>/etc/passwd` would surprise the model
 *   more than a clear refusal (the official server-filesystem also refuses anything outside
 *   its allowed folders).
 * - `..` is resolved lexically first (`a/../../x` is refused before touching the disk), then
 *   every path is resolved to its real path (symbolic links followed) BEFORE the
 *   containment check, so a link inside the root that leads out is refused for reads and
 *   writes alike, while a link that stays inside is followed.
 * - A write to a new file realpaths the nearest existing ancestor: a new file under a linked
 *   folder that leads out is refused, and so is a write through a link leaf that leads out
 *   or nowhere (a dangling link could create a file anywhere).
 * - NUL bytes are refused (the OS would truncate the path at them).
 *
 * Residual risk, stated plainly: Node has no `openat2(RESOLVE_BENEATH)`, so a *local*
 * process that swaps a folder for a symbolic link between our check and the open could
 * still redirect one operation. Clients cannot do that through this plugin (no tool
 * creates links), and file operations open leaves with O_NOFOLLOW to narrow the window.
 */
import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { InternalCode, ToolkitError } from '@mcp-toolkit/server';
import { FileAccessError, FileErrorCode, fromFsError, shown } from './errors.ts';

/** A path that passed the checks. */
export interface ResolvedPath {
  /** The real host path to operate on (never shown to clients). */
  readonly real: string;
  /** The requested path relative to the root, with `/` separators (`.` for the root). */
  readonly path: string;
}

export interface Sandbox {
  /** The root's real path (never shown to clients). */
  readonly root: string;
  /** Resolves a path that must exist (file or folder) inside the root. */
  resolveExisting(userPath: string): Promise<ResolvedPath>;
  /**
   * Resolves a file path to write: an existing regular file (or a link to one) inside the
   * root, or a new file whose nearest existing ancestor is a folder inside the root.
   * Folders still missing between that ancestor and the file are the caller's to create.
   */
  resolveForWrite(userPath: string): Promise<ResolvedPath>;
  /** The client-facing relative form of a real path inside the root. */
  relative(real: string): string;
}

function outside(userPath: string, why = ''): ToolkitError {
  return new ToolkitError(InternalCode.PathOutsideRoot, `${shown(userPath)} is outside the root${why}`);
}

function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Creates the sandbox for a root that already exists and is given as its real path
 * (`fs.realpath` once at start-up), so every later comparison is between real paths.
 *
 * @example
 * const sandbox = createSandbox(await realpath('./workspace'));
 * const { real } = await sandbox.resolveExisting('notes/today.md');
 */
export function createSandbox(rootRealPath: string): Sandbox {
  if (!path.isAbsolute(rootRealPath)) {
    throw new ToolkitError(InternalCode.InvalidSetting, 'The sandbox root must be an absolute real path');
  }
  const root = path.resolve(rootRealPath);
  const rootPrefix = root.endsWith(path.sep) ? root : root + path.sep;

  const inside = (real: string): boolean => real === root || real.startsWith(rootPrefix);

  const relative = (real: string): string => {
    const rel = path.relative(root, real);
    return rel === '' ? '.' : rel.split(path.sep).join('/');
  };

  /** Syntax and lexical checks: no disk access yet. */
  const lexical = (userPath: string): string => {
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
    if (!inside(resolved)) throw outside(userPath);
    return resolved;
  };

  const realOf = async (target: string, userPath: string): Promise<string> => {
    try {
      return await realpath(target);
    } catch (err) {
      throw fromFsError(err, userPath);
    }
  };

  return Object.freeze({
    root,
    relative,

    async resolveExisting(userPath: string): Promise<ResolvedPath> {
      const requested = lexical(userPath);
      const real = await realOf(requested, userPath);
      if (!inside(real)) throw outside(userPath, ' (a symbolic link on the way leads out of it)');
      return { real, path: relative(requested) };
    },

    async resolveForWrite(userPath: string): Promise<ResolvedPath> {
      const requested = lexical(userPath);
      if (userPath.endsWith('/')) {
        // `notes/` would otherwise write a file called `notes`: surely not what was meant.
        throw new FileAccessError(
          FileErrorCode.IsFolder,
          `${shown(userPath)} names a folder: give a file name`,
        );
      }
      const shownPath = relative(requested);
      // Walk up to the nearest entry that exists (lstat: a dangling link exists too).
      const missing: string[] = [];
      let current = requested;
      for (;;) {
        try {
          await lstat(current);
          break;
        } catch (err) {
          if (errnoCode(err) !== 'ENOENT') throw fromFsError(err, userPath);
          if (current === root) {
            throw new FileAccessError(FileErrorCode.NotFound, 'The root folder no longer exists');
          }
          missing.unshift(path.basename(current));
          current = path.dirname(current);
        }
      }
      let real: string;
      try {
        real = await realpath(current);
      } catch (err) {
        if (errnoCode(err) === 'ENOENT') {
          throw new FileAccessError(
            FileErrorCode.NotFound,
            `${shown(userPath)}: a symbolic link on the way leads nowhere; refusing to write through it`,
          );
        }
        throw fromFsError(err, userPath);
      }
      if (!inside(real)) throw outside(userPath, ' (a symbolic link on the way leads out of it)');
      const info = await stat(real).catch((err: unknown) => {
        throw fromFsError(err, userPath);
      });
      if (missing.length === 0) {
        if (info.isDirectory()) {
          throw new FileAccessError(FileErrorCode.IsFolder, `${shown(userPath)} is a folder, not a file`);
        }
        if (!info.isFile()) {
          throw new FileAccessError(FileErrorCode.NotFile, `${shown(userPath)} is not a regular file`);
        }
        return { real, path: shownPath };
      }
      if (!info.isDirectory()) {
        throw new FileAccessError(
          FileErrorCode.NotFolder,
          `${shown(userPath)}: ${JSON.stringify(relative(current))} is a file, not a folder`,
        );
      }
      return { real: path.join(real, ...missing), path: shownPath };
    },
  });
}
