/**
 * `npm run build:views`: bundles each plugin view (MCP Apps) with esbuild into one
 * self-contained HTML file: the script inlined into its HTML template, no file or CDN loaded
 * at run time, as hosts render views in a sandbox with no network by default. The output is
 * committed, so `npm install && npm start` (and the production image, which has no dev
 * dependencies) serve it as it is; `--check` fails when it is stale (test/plugins/).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface ViewBuild {
  /** The TypeScript entry point. */
  readonly entry: string;
  /** The HTML template, with a `<script>/*VIEW_SCRIPT*\/</script>` placeholder. */
  readonly template: string;
  /** The built file, relative to the repository root. */
  readonly output: string;
}

export const VIEWS: readonly ViewBuild[] = [
  {
    entry: 'plugins/filesystem/view/src/file-browser.ts',
    template: 'plugins/filesystem/view/src/file-browser.html',
    output: 'plugins/filesystem/view/file-browser.html',
  },
];

const PLACEHOLDER = '/*VIEW_SCRIPT*/';

/** Bundles one view and returns the finished HTML. */
export async function buildView(view: ViewBuild): Promise<string> {
  const result = await build({
    entryPoints: [path.join(ROOT, view.entry)],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'eof',
    charset: 'utf8',
    logLevel: 'silent',
  });
  const js = result.outputFiles[0]?.text ?? '';
  // An inline script ends at the first "</script" whatever quotes surround it.
  const safe = js.replaceAll('</script', '<\\/script').replaceAll('<!--', '<\\!--');
  const template = readFileSync(path.join(ROOT, view.template), 'utf8');
  if (!template.includes(PLACEHOLDER)) throw new Error(`${view.template} has no ${PLACEHOLDER} placeholder`);
  const [before, after] = template.split(PLACEHOLDER) as [string, string];
  return before + safe.trimEnd() + after;
}

/** Builds every view; with `check`, writes nothing and lists the stale outputs. */
export async function buildViews(check = false): Promise<string[]> {
  const stale: string[] = [];
  for (const view of VIEWS) {
    const html = await buildView(view);
    const file = path.join(ROOT, view.output);
    let existing: string | undefined;
    try {
      existing = readFileSync(file, 'utf8');
    } catch {
      existing = undefined;
    }
    if (existing === html) continue;
    stale.push(view.output);
    if (!check) writeFileSync(file, html);
  }
  return stale;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const check = process.argv.includes('--check');
  const stale = await buildViews(check);
  if (check && stale.length > 0) {
    console.error(`build-views: stale, run npm run build:views: ${stale.join(', ')}`);
    process.exit(1);
  }
  console.error(check ? 'build-views: up to date' : `build-views: wrote ${stale.length} file(s)`);
}
