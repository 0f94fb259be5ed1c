/**
 * A small Dockerfile reader for the deploy tests: enough of the format
 * (https://docs.docker.com/reference/dockerfile/) to read what our Dockerfile says:
 * comments and parser directives skipped, `\` continuations joined, instructions grouped
 * by stage, ENV in both forms, exec-form (JSON) commands.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { filesystemSettings } from '../../plugins/filesystem/index.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

export interface Instruction {
  /** Upper-cased keyword: FROM, RUN, COPY, ENV, ... */
  readonly keyword: string;
  /** Everything after the keyword, continuations joined with a space. */
  readonly args: string;
  /** Index of the stage (FROM) the instruction belongs to; FROM itself opens it. */
  readonly stage: number;
}

export interface Stage {
  readonly image: string;
  readonly name: string | undefined;
  readonly instructions: readonly Instruction[];
}

export interface Dockerfile {
  readonly instructions: readonly Instruction[];
  readonly stages: readonly Stage[];
}

/** Splits on whitespace, keeping quoted runs inside a word (`A="x y"` → `A=x y`; quotes removed). */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < text.length) word += text[++i]!;
      else word += c;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
      word ??= '';
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Parses Dockerfile text into instructions and stages. */
export function parseDockerfile(text: string): Dockerfile {
  const instructions: Instruction[] = [];
  let stage = -1;
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    // Comment lines (and directives such as `# syntax=`) may sit inside a continuation too.
    if (/^\s*#/.test(line)) continue;
    if (pending === '' && line.trim() === '') continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    const full = (pending + line.trim()).trim();
    pending = '';
    if (full === '') continue;
    const space = full.search(/\s/);
    const keyword = (space === -1 ? full : full.slice(0, space)).toUpperCase();
    const args = space === -1 ? '' : full.slice(space + 1).trim();
    if (keyword === 'FROM') stage++;
    instructions.push({ keyword, args, stage });
  }
  const stages: Stage[] = [];
  for (const from of instructions.filter((i) => i.keyword === 'FROM')) {
    const words = splitWords(from.args).filter((w) => !w.startsWith('--'));
    const asIndex = words.findIndex((w) => w.toUpperCase() === 'AS');
    stages.push({
      image: words[0] ?? '',
      name: asIndex === -1 ? undefined : words[asIndex + 1],
      instructions: instructions.filter((i) => i.stage === from.stage),
    });
  }
  return { instructions, stages };
}

/** The variables an `ENV` instruction sets: `ENV A=1 B="x y"` or the legacy `ENV A 1`. */
export function envOf(instruction: Instruction): Record<string, string> {
  const words = splitWords(instruction.args);
  const out: Record<string, string> = {};
  if (words.length > 0 && !words[0]!.includes('=')) {
    out[words[0]!] = words.slice(1).join(' ');
    return out;
  }
  for (const word of words) {
    const eq = word.indexOf('=');
    out[word.slice(0, eq)] = word.slice(eq + 1);
  }
  return out;
}

/** The JSON array of an exec-form instruction (CMD, ENTRYPOINT, HEALTHCHECK ... CMD); undefined for shell form. */
export function execForm(args: string): string[] | undefined {
  const start = args.indexOf('[');
  if (start === -1) return undefined;
  try {
    const parsed = JSON.parse(args.slice(start)) as unknown;
    return Array.isArray(parsed) && parsed.every((s) => typeof s === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** `COPY [--chown=..] src... dest`: the sources and the destination; `from` for `--from=stage`. */
export function copyOf(instruction: Instruction): { from?: string; sources: string[]; dest: string } {
  const words = splitWords(instruction.args);
  const flags = words.filter((w) => w.startsWith('--'));
  const rest = words.filter((w) => !w.startsWith('--'));
  const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
  return { from, sources: rest.slice(0, -1), dest: rest.at(-1) ?? '' };
}

/** The repository's Dockerfile, parsed. */
export function readDockerfile(): Dockerfile {
  return parseDockerfile(readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'));
}

/** The environment the final stage sets (ENV of that stage, in order). */
export function imageEnv(file: Dockerfile): Record<string, string> {
  const last = file.stages.at(-1);
  return Object.assign({}, ...(last?.instructions.filter((i) => i.keyword === 'ENV').map(envOf) ?? []));
}

/** The final stage's working directory (its last WORKDIR; `/` without one). */
export function imageWorkdir(file: Dockerfile): string {
  return file.stages.at(-1)?.instructions.findLast((i) => i.keyword === 'WORKDIR')?.args ?? '/';
}

/**
 * Where the filesystem plugin's root is in the image: MCP_FILESYSTEM_ROOT when the image sets
 * it, else the plugin's default resolved against the working directory.
 */
export function imageFilesystemRoot(file: Dockerfile): string {
  const root = imageEnv(file).MCP_FILESYSTEM_ROOT ?? filesystemSettings.parse({}).root;
  return path.posix.resolve(imageWorkdir(file), root);
}

/** Every path the image takes from the build context (COPY/ADD without --from), in any stage. */
export function contextSources(file: Dockerfile): string[] {
  const sources = file.instructions
    .filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD')
    .map(copyOf)
    .filter((c) => c.from === undefined)
    .flatMap((c) => c.sources.map((s) => s.replace(/^\.\//, '').replace(/\/$/, '')));
  return [...new Set(sources)];
}

/**
 * How `app`'s node_modules differs from the lockfile's production set: a dev-only package
 * installed, or a runtime one missing (optional ones may be either). Empty when they agree.
 */
export function productionInstallMismatches(
  app: string,
  lockfile = path.join(app, 'package-lock.json'),
): string[] {
  const lock = JSON.parse(readFileSync(lockfile, 'utf8')) as {
    packages: Record<string, { dev?: boolean; optional?: boolean; devOptional?: boolean }>;
  };
  const wrong: string[] = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (!where.startsWith('node_modules/')) continue;
    const installed = existsSync(path.join(app, where, 'package.json'));
    if (entry.dev && installed) wrong.push(`${where} is dev-only but installed`);
    if (!entry.dev && !entry.optional && !entry.devOptional && !installed) wrong.push(`${where} is missing`);
  }
  return wrong;
}

const GLOB_PARTS: Readonly<Record<string, string>> = {
  '**/': '(?:.*/)?',
  '**': '.*',
  '*': '[^/]*',
  '?': '[^/]',
};

/** One line of .dockerignore: a path pattern, `!` re-admitting what earlier lines excluded. */
export interface IgnoreRule {
  readonly pattern: RegExp;
  readonly admit: boolean;
}

/**
 * The rules of a .dockerignore (https://docs.docker.com/build/concepts/context/#dockerignore-files):
 * Go filepath.Match patterns (`*`, `?`) plus `**` for any number of folders, a pattern that
 * matches a folder matching everything under it, and the last matching line winning.
 */
export function readDockerignore(
  text = readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8'),
): IgnoreRule[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((line) => {
      const admit = line.startsWith('!');
      const glob = (admit ? line.slice(1) : line).replace(/^\/+|\/+$/g, '');
      const source = glob
        .split(/(\*\*\/?|\*|\?)/)
        .map((part) => GLOB_PARTS[part] ?? part.replace(/[.+^${}()|[\]\\]/g, '\\$&'))
        .join('');
      return { pattern: new RegExp(`^${source}(?:/.*)?$`), admit };
    });
}

/** Whether the build context holds `rel` (a path relative to the context, `/`-separated). */
export function inBuildContext(rel: string, rules: readonly IgnoreRule[] = readDockerignore()): boolean {
  let admitted = true;
  for (const rule of rules) if (rule.pattern.test(rel)) admitted = rule.admit;
  return admitted;
}
