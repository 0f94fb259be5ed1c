/**
 * The skills a folder holds (SEP-2640), read once at start-up: every folder with a SKILL.md
 * is a skill at `skill://<path from the folder>/SKILL.md`, whose entry lists every file
 * beneath it (nested skills included) with its SHA-256 digest and size.
 *
 * What is not served, each with a warning in the log naming the path and the reason: a
 * skill whose front matter is missing or broken, whose name differs from its folder's, or
 * that exceeds the limits (512 files, 16 MiB: SEP-2640 §Limits, "servers SHOULD NOT serve");
 * a SKILL.md at the folder's root (a skill path has at least one segment); a symbolic link
 * that leads out of the folder (the file is left out). Hidden files and folders (`.git`,
 * `.DS_Store`) are skipped.
 */
import { createHash } from 'node:crypto';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { InternalCode, ToolkitError } from '../base/errors.ts';
import type { JsonObject } from '../base/jsonrpc.ts';
import { type Frontmatter, readFrontmatter } from './frontmatter.ts';
import { mimeTypeOf } from './mime.ts';
import { isInside, readInside } from './safe-read.ts';

const MAX_FILES_PER_SKILL = 512;
const MAX_BYTES_PER_SKILL = 16 * 1024 * 1024;
const SKILL_FILE = 'SKILL.md';
const DIRECTORY_MIME = 'inode/directory';

export interface SkillFile {
  readonly uri: string;
  /** Path under the skills folder, `/`-separated. */
  readonly relative: string;
  readonly name: string;
  readonly mimeType: string;
  readonly size: number;
  readonly digest: string;
}

export interface Skill {
  /** `skill://<skill-path>/SKILL.md` */
  readonly uri: string;
  readonly frontmatter: Frontmatter;
  /** The entry `skills/list` and `skills/get` return. */
  readonly entry: JsonObject;
}

export interface SkillCatalog {
  /** The folder's real path (never shown to clients). */
  readonly root: string;
  /** Entries in URI order. */
  readonly skills: readonly Skill[];
  skill(uri: string): Skill | undefined;
  file(uri: string): SkillFile | undefined;
  /** The direct children of a directory resource (SEP-2640 §Reading Directories), or undefined. */
  directory(uri: string): readonly JsonObject[] | undefined;
  /** Reads a served file's bytes through the symlink-proof reader; undefined when not served. */
  read(uri: string): Promise<Buffer | undefined>;
}

export interface CatalogLogger {
  warn(obj: object, msg: string): void;
}

const uriOf = (segments: readonly string[]) => `skill://${segments.map(encodeURIComponent).join('/')}`;

/** Every file under the folder with its size, links that lead out refused, hidden entries skipped. */
async function walk(root: string, logger: CatalogLogger): Promise<Map<string, number>> {
  const files = new Map<string, number>();
  const seen = new Set<string>([root]);
  const visit = async (relative: string): Promise<void> => {
    const entries = await readdir(path.join(root, relative), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const rel = relative === '' ? entry.name : `${relative}/${entry.name}`;
      const real = await realpath(path.join(root, rel)).catch(() => undefined);
      if (real === undefined || !isInside(root, real)) {
        logger.warn(
          { path: rel },
          'skills: refused a symbolic link that leads out of the skills folder (or nowhere)',
        );
        continue;
      }
      const info = await stat(real);
      if (info.isDirectory()) {
        // A link back up the tree would otherwise walk forever.
        if (seen.has(real)) continue;
        seen.add(real);
        await visit(rel);
      } else if (info.isFile()) files.set(rel, info.size);
    }
  };
  await visit('');
  return files;
}

/**
 * Reads the skills folder. Throws a ToolkitError (InvalidSetting) when the folder is not a
 * readable folder: a bad MCP_SKILLS_DIR stops start-up.
 *
 * @example
 * const catalog = await loadSkillCatalog('./skills', logger);
 */
export async function loadSkillCatalog(folder: string, logger: CatalogLogger): Promise<SkillCatalog> {
  let root: string;
  try {
    root = await realpath(folder);
    if (!(await stat(root)).isDirectory()) throw new Error('not a folder');
  } catch (err) {
    throw new ToolkitError(
      InternalCode.InvalidSetting,
      `MCP_SKILLS_DIR=${JSON.stringify(folder)} is not a readable folder (${(err as Error).message}): point it at a folder of skills`,
    );
  }
  const sizes = await walk(root, logger);
  const all = [...sizes.keys()];
  const files = new Map<string, SkillFile>();
  const described = async (relative: string): Promise<SkillFile | undefined> => {
    const segments = relative.split('/');
    const uri = uriOf(segments);
    const known = files.get(uri);
    if (known) return known;
    try {
      const bytes = await readInside(root, relative, MAX_BYTES_PER_SKILL);
      const name = segments[segments.length - 1] as string;
      const file: SkillFile = {
        uri,
        relative,
        name,
        mimeType: mimeTypeOf(name),
        size: bytes.length,
        digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
      };
      files.set(uri, file);
      return file;
    } catch (err) {
      logger.warn(
        { path: relative, err: (err as Error).message },
        'skills: a file could not be read and is left out',
      );
      return undefined;
    }
  };

  const skills: Skill[] = [];
  const served = new Set<string>();
  for (const skillMd of all.filter((f) => f === SKILL_FILE || f.endsWith(`/${SKILL_FILE}`))) {
    const dir = skillMd.slice(0, -SKILL_FILE.length - 1);
    if (dir === '') {
      logger.warn(
        { path: skillMd },
        'skills: a SKILL.md at the root of the skills folder is not a skill (put it in a folder named after the skill)',
      );
      continue;
    }
    const skip = (problem: string) => logger.warn({ skill: dir, problem }, 'skills: skill not served');
    const members = all.filter((f) => f.startsWith(`${dir}/`));
    if (members.length > MAX_FILES_PER_SKILL) {
      skip(`${members.length} files, more than the ${MAX_FILES_PER_SKILL} a skill may have`);
      continue;
    }
    // The limits from the sizes on disk, before anything is read.
    const total = members.reduce((sum, f) => sum + (sizes.get(f) ?? 0), 0);
    if (total > MAX_BYTES_PER_SKILL) {
      skip(`${total} bytes, more than the ${MAX_BYTES_PER_SKILL} a skill may have`);
      continue;
    }
    const manifest: SkillFile[] = [];
    for (const member of members) {
      const file = await described(member);
      if (file) manifest.push(file);
    }
    const main = manifest.find((f) => f.relative === skillMd);
    if (!main) {
      skip('its SKILL.md could not be read');
      continue;
    }
    const text = (await readInside(root, skillMd, MAX_BYTES_PER_SKILL)).toString('utf8');
    const parsed = readFrontmatter(text, path.posix.basename(dir));
    if ('problem' in parsed) {
      skip(parsed.problem);
      continue;
    }
    for (const f of manifest) served.add(f.uri);
    skills.push({
      uri: main.uri,
      frontmatter: parsed.frontmatter,
      entry: Object.freeze({
        uri: main.uri,
        frontmatter: parsed.frontmatter,
        resources: manifest.map((f) => ({ uri: f.uri, digest: f.digest, size: f.size })),
      }),
    });
  }
  skills.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  for (const uri of [...files.keys()]) if (!served.has(uri)) files.delete(uri);
  const directories = directoryTree([...files.values()]);
  const byUri = new Map(skills.map((s) => [s.uri, s]));

  return Object.freeze({
    root,
    skills,
    skill: (uri: string) => byUri.get(uri),
    file: (uri: string) => files.get(uri),
    directory: (uri: string) => directories.get(uri),
    async read(uri: string) {
      const file = files.get(uri);
      return file ? readInside(root, file.relative, MAX_BYTES_PER_SKILL) : undefined;
    },
  });
}

/** Every folder above a served file (the skill roots, their subfolders, the prefixes) with its children. */
function directoryTree(files: readonly SkillFile[]): Map<string, JsonObject[]> {
  const children = new Map<string, Map<string, JsonObject>>();
  const add = (dir: string, child: JsonObject) => {
    let set = children.get(dir);
    if (!set) {
      set = new Map();
      children.set(dir, set);
    }
    set.set(String(child.uri), child);
  };
  for (const file of files) {
    const segments = file.relative.split('/');
    add(uriOf(segments.slice(0, -1)), {
      uri: file.uri,
      name: file.name,
      mimeType: file.mimeType,
      size: file.size,
    });
    for (let depth = segments.length - 2; depth >= 1; depth--) {
      const sub = segments.slice(0, depth + 1);
      add(uriOf(segments.slice(0, depth)), {
        uri: uriOf(sub),
        name: sub[depth] as string,
        mimeType: DIRECTORY_MIME,
      });
    }
  }
  const out = new Map<string, JsonObject[]>();
  for (const [dir, set] of children) {
    out.set(
      dir,
      [...set.values()].sort((a, b) => (String(a.uri) < String(b.uri) ? -1 : 1)),
    );
  }
  return out;
}
