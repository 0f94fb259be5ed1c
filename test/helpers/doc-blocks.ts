/**
 * The TypeScript blocks of README.md and docs/*.md, laid out as files so they can be
 * type-checked and run as a reader would use them. A block whose first line is a comment
 * naming a path (`// plugins/weather/index.ts`) is written there; the others get a name of
 * their own. The folder sits inside the repository (under the ignored .cache/), so
 * `@mcp-toolkit/server` resolves to the sources as it does in a clone, and the bundled
 * plugins are linked in so a block can import them.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './spawn-server.ts';

export interface DocBlock {
  /** The page, e.g. `docs/plugins.md`. */
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** Where the block is written, relative to the folder. */
  file: string;
  code: string;
}

/** Pages whose TypeScript blocks are checked. */
export function docPages(): string[] {
  const docs = ['docs', 'docs/internals'].flatMap((dir) =>
    readdirSync(path.join(REPO_ROOT, dir))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `${dir}/${f}`),
  );
  return ['README.md', ...docs];
}

const PATH_COMMENT = /^\/\/ ((?:[\w.-]+\/)*[\w.-]+\.ts)\b/;

/** Every ```ts (or ```typescript) block of the pages. */
export function docBlocks(pages: readonly string[] = docPages()): DocBlock[] {
  const blocks: DocBlock[] = [];
  for (const page of pages) {
    const lines = readFileSync(path.join(REPO_ROOT, page), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!/^```(ts|typescript)\s*$/.test(lines[i]!)) continue;
      const start = i;
      const body: string[] = [];
      for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
      const code = `${body.join('\n')}\n`;
      const named = PATH_COMMENT.exec(body[0] ?? '')?.[1];
      const file = named ?? `${page.replace(/[/.]/g, '-')}-line-${start + 1}.ts`;
      blocks.push({ page, line: start + 1, file, code });
    }
  }
  return blocks;
}

/**
 * Writes the blocks under `<repo>/.cache/<name>/`, with the repository's plugins linked in
 * beside the pages' own; returns the folder. Two blocks naming the same file is a mistake.
 */
export function layOut(blocks: readonly DocBlock[], name: string): string {
  const dir = path.join(REPO_ROOT, '.cache', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'plugins'), { recursive: true });
  const seen = new Map<string, DocBlock>();
  for (const block of blocks) {
    const earlier = seen.get(block.file);
    if (earlier) {
      throw new Error(
        `${block.page}:${block.line} and ${earlier.page}:${earlier.line} both write ${block.file}`,
      );
    }
    seen.set(block.file, block);
    const target = path.join(dir, block.file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, block.code);
  }
  for (const plugin of readdirSync(path.join(REPO_ROOT, 'plugins'))) {
    if (seen.has(`plugins/${plugin}/index.ts`)) continue;
    symlinkSync(path.join(REPO_ROOT, 'plugins', plugin), path.join(dir, 'plugins', plugin), 'dir');
  }
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    `${JSON.stringify({ extends: '../../tsconfig.json', files: blocks.map((b) => b.file) }, null, 2)}\n`,
  );
  return dir;
}

/** How a block runs: a test file under node --test, a plugin by loading it, anything else as a script. */
export function runKind(block: DocBlock): 'test' | 'plugin' | 'module' | 'script' {
  if (block.file.endsWith('.test.ts')) return 'test';
  if (/^plugins\/[^/]+\/index\.ts$/.test(block.file)) return 'plugin';
  // A plugin's other files run when its index imports them.
  if (block.file.startsWith('plugins/')) return 'module';
  return 'script';
}

/** The `mcp-toolkit` commands the pages run through npx (`npx mcp-toolkit run ...` → `run`). */
export function docNpxCommands(pages: readonly string[] = docPages()): string[] {
  const commands = new Set<string>();
  for (const page of pages) {
    const text = readFileSync(path.join(REPO_ROOT, page), 'utf8');
    for (const m of text.matchAll(/\bnpx mcp-toolkit ([a-z][a-z-]*)/g)) commands.add(m[1]!);
  }
  return [...commands].sort();
}
