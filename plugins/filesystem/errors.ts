/**
 * Clean, client-safe failures of the filesystem plugin. Node's own fs errors carry the
 * host's absolute path in `message` and `path`; anything a client sees is built here from
 * the path the client typed, so no host layout leaks (docs/security.md: errors sent to clients
 * never carry host paths or stacks). Escapes use the toolkit's own
 * `ToolkitError(InternalCode.PathOutsideRoot)`, thrown in sandbox.ts.
 */

/** Stable codes, after the errno names every Unix user knows. */
export const FileErrorCode = {
  NotFound: 'ENOENT',
  IsFolder: 'EISDIR',
  NotFolder: 'ENOTDIR',
  NotFile: 'ENOTFILE',
  Denied: 'EACCES',
  Loop: 'ELOOP',
  TooLarge: 'EFBIG',
  /** A regular file with more than one hard link (refused unless MCP_FILESYSTEM_ALLOW_HARDLINKS). */
  HardLinked: 'EMLINK',
  NotText: 'EILSEQ',
  InvalidPath: 'EINVAL',
  Exists: 'EEXIST',
  NoSpace: 'ENOSPC',
  ReadOnlyFs: 'EROFS',
  Other: 'EIO',
} as const;

export type FileErrorCodeValue = (typeof FileErrorCode)[keyof typeof FileErrorCode];

/**
 * A file operation that failed for a reason the client can act on.
 *
 * @example
 * throw new FileAccessError(FileErrorCode.NotFound, '"notes.txt" does not exist');
 */
export class FileAccessError extends Error {
  readonly code: FileErrorCodeValue;
  constructor(code: FileErrorCodeValue, message: string) {
    super(message);
    this.name = 'FileAccessError';
    this.code = code;
  }
}

const MAX_SHOWN = 200;

/** The client's own (relative) path, quoted and bounded, for messages. */
export function shown(userPath: string): string {
  const clipped = userPath.length > MAX_SHOWN ? `${userPath.slice(0, MAX_SHOWN)}…` : userPath;
  return JSON.stringify(clipped);
}

/**
 * Turns a Node fs error into a FileAccessError that names only `userPath`. Anything that is
 * not a Node system error is returned untouched so it is not disguised.
 */
export function fromFsError(err: unknown, userPath: string): Error {
  // Node system errors carry `syscall`; an AbortError or a bug passes through as it is.
  const { code, syscall } = (err ?? {}) as { code?: unknown; syscall?: unknown };
  if (typeof code !== 'string' || typeof syscall !== 'string' || !(err instanceof Error)) return err as Error;
  const p = shown(userPath);
  switch (code) {
    case 'ENOENT':
      return new FileAccessError(FileErrorCode.NotFound, `${p} does not exist`);
    case 'EISDIR':
      return new FileAccessError(FileErrorCode.IsFolder, `${p} is a folder, not a file`);
    case 'ENOTDIR':
      return new FileAccessError(FileErrorCode.NotFolder, `${p}: a part of this path is not a folder`);
    case 'EACCES':
    case 'EPERM':
      return new FileAccessError(FileErrorCode.Denied, `${p}: permission denied`);
    case 'ELOOP':
      return new FileAccessError(
        FileErrorCode.Loop,
        `${p}: too many levels of symbolic links (or a symbolic link where a file was expected)`,
      );
    case 'ENAMETOOLONG':
      return new FileAccessError(FileErrorCode.InvalidPath, `${p}: the name is too long`);
    case 'EEXIST':
      return new FileAccessError(FileErrorCode.Exists, `${p} already exists`);
    case 'ENOSPC':
    case 'EDQUOT':
      return new FileAccessError(FileErrorCode.NoSpace, `${p}: no space left on the device`);
    case 'EROFS':
      return new FileAccessError(FileErrorCode.ReadOnlyFs, `${p}: the file system is read-only`);
    default:
      return new FileAccessError(
        FileErrorCode.Other,
        `${p}: the file system refused the operation (${code})`,
      );
  }
}
