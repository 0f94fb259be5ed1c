/**
 * The component-by-component walk behind sandbox.ts: from a descriptor of the root, each
 * name is opened relative to the folder opened before it with O_NOFOLLOW, so the kernel
 * never follows a link on our behalf. A link met on the way is read (readlink) and its
 * target pushed back onto the names still to walk; a target that leaves the root (an
 * absolute path elsewhere, or `..` above the root) is refused before anything it names is
 * opened, so an escape answers the same whether or not its target exists.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, mkdir, open, readlink } from 'node:fs/promises';
import path from 'node:path';
import type { ToolkitError } from '@mcp-toolkit/server';
import { FileAccessError, FileErrorCode, fromFsError, shown } from './errors.ts';

/** A folder opened during the walk, with the path string that names it (see OpenedEntry.ref). */
export interface Folder {
  readonly handle: FileHandle;
  readonly ref: string;
}

export interface WalkedEntry extends Folder {
  readonly stats: Stats;
}

export interface Walked {
  /** What the path names, opened without following it; undefined when missing (writes only). */
  readonly entry: WalkedEntry | undefined;
  /** The folder holding the last name; undefined when the path ends on a folder (`.`, `..`, the root). */
  readonly parent: Folder | undefined;
  /** The last name, as found in `parent`. */
  readonly name: string | undefined;
  /** Closes every descriptor the walk opened (the entry's too). */
  close(): Promise<void>;
}

export interface WalkerOptions {
  readonly root: string;
  readonly rootPrefix: string;
  /** The path string naming an opened descriptor (`/proc/self/fd/<fd>`, or `name` itself). */
  refOf(handle: FileHandle, name: string): string;
  /** The path string of `name` inside `folder`. */
  join(folder: Folder, name: string): string;
  /** The refusal for any way out of the root. */
  escaped(userPath: string): ToolkitError;
}

export interface Walker {
  /**
   * Walks `parts` (lexically clean names under the root). With `forWrite`, missing folders
   * are created and a missing last name is not an error.
   */
  walk(userPath: string, parts: readonly string[], forWrite: boolean): Promise<Walked>;
  join(folder: Folder, name: string): string;
}

// O_NOFOLLOW on every name: a link is reported (ELOOP, or ENOTDIR with O_DIRECTORY), never
// followed. O_NONBLOCK: opening a FIFO must not hang the call (callers refuse it).
const FOLDER = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const LEAF = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** Linux's MAXSYMLINKS; also bounds retries when a name changes kind under us. */
const MAX_HOPS = 40;

function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Link targets are `/`-separated on POSIX; Windows accepts both separators. */
const SEPARATORS = path.sep === '\\' ? /[\\/]/ : /\//;

/**
 * Creates the walker for one root.
 *
 * @example
 * const walker = createWalker({ root, rootPrefix, refOf, join, escaped });
 * const walked = await walker.walk('notes/a.md', ['notes', 'a.md'], false);
 * await walked.close();
 */
export function createWalker(options: WalkerOptions): Walker {
  const { root, rootPrefix, refOf, join, escaped } = options;

  const tooManyLinks = (userPath: string) =>
    new FileAccessError(FileErrorCode.Loop, `${shown(userPath)}: too many levels of symbolic links`);

  /** A link's target, or undefined when `ref` is no link (any more). */
  const targetOf = async (ref: string): Promise<string | undefined> => {
    try {
      return await readlink(ref);
    } catch {
      return undefined;
    }
  };

  async function walk(userPath: string, parts: readonly string[], forWrite: boolean): Promise<Walked> {
    const opened: FileHandle[] = [];
    const close = async (): Promise<void> => {
      await Promise.all(opened.splice(0).map((h) => h.close().catch(() => {})));
    };
    try {
      let rootHandle: FileHandle;
      try {
        rootHandle = await open(root, constants.O_RDONLY | constants.O_DIRECTORY);
      } catch {
        throw new FileAccessError(FileErrorCode.NotFound, 'The root folder no longer exists');
      }
      opened.push(rootHandle);
      const stack: Folder[] = [{ handle: rootHandle, ref: refOf(rootHandle, root) }];
      // Names still to walk, last first, so pushing a link's target is cheap.
      const pending = [...parts].reverse();
      let hops = 0;
      const hop = () => {
        hops += 1;
        if (hops > MAX_HOPS) throw tooManyLinks(userPath);
      };
      const follow = (target: string) => {
        let rest = target;
        if (path.isAbsolute(target)) {
          // The root by its real path, or nothing: `/etc/passwd` is refused without a look.
          if (target !== root && !target.startsWith(rootPrefix)) throw escaped(userPath);
          stack.length = 1;
          rest = target.slice(root.length);
        }
        const names = rest.split(SEPARATORS);
        for (let i = names.length - 1; i >= 0; i--) pending.push(names[i] as string);
      };

      while (pending.length > 0) {
        const name = pending.pop() as string;
        if (name === '' || name === '.') continue;
        const folder = stack[stack.length - 1] as Folder;
        if (name === '..') {
          if (stack.length === 1) throw escaped(userPath);
          stack.pop();
          continue;
        }
        const last = pending.length === 0;
        const ref = join(folder, name);
        let handle: FileHandle;
        try {
          handle = await open(ref, last ? LEAF : FOLDER);
        } catch (err) {
          const code = errnoCode(err);
          if (code === 'ELOOP' || (code === 'ENOTDIR' && !last)) {
            hop();
            const target = await targetOf(ref);
            if (target !== undefined) {
              follow(target);
            } else if (code === 'ENOTDIR') {
              throw new FileAccessError(
                FileErrorCode.NotFolder,
                `${shown(userPath)}: a part of this path is not a folder`,
              );
            } else {
              pending.push(name); // it was a link a moment ago: look again
            }
            continue;
          }
          if (code === 'ENOENT' && forWrite) {
            if (last) return { entry: undefined, parent: folder, name, close };
            hop();
            await mkdir(ref).catch((e: unknown) => {
              if (errnoCode(e) !== 'EEXIST') throw e;
            });
            pending.push(name); // now open what is there, by the same rules
            continue;
          }
          throw err;
        }
        opened.push(handle);
        const entryRef = refOf(handle, ref);
        if (!last) {
          stack.push({ handle, ref: entryRef });
          continue;
        }
        return { entry: { handle, ref: entryRef, stats: await handle.stat() }, parent: folder, name, close };
      }
      const top = stack[stack.length - 1] as Folder;
      return { entry: { ...top, stats: await top.handle.stat() }, parent: undefined, name: undefined, close };
    } catch (err) {
      await close();
      throw fromFsError(err, userPath);
    }
  }

  return Object.freeze({ walk, join });
}
