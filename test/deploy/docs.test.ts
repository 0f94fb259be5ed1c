/**
 * The docs name only what exists: every `MCP_*` token in README.md and docs/*.md is a real
 * setting (core or plugin), a prefix of real ones (`MCP_FILESYSTEM_*`), or a setting of a
 * plugin the page itself defines or scaffolds as an example; every `mcp-toolkit <command>` in
 * their code is listed by `mcp-toolkit --help` and every `npm run <script>` is a script of
 * package.json (the roadmap may name planned commands);
 * every runtime dependency has its line in docs/dependencies.md; the deployment pages' links
 * resolve.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { settingEnvName } from '../../src/plugin/define.ts';
import { docPages } from '../helpers/doc-blocks.ts';
import { CLI, REPO_ROOT } from '../helpers/spawn-server.ts';
import { knownSettings } from './known-settings.ts';

const pages = docPages();
const read = (rel: string) => readFileSync(path.join(REPO_ROOT, rel), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
};

/** Inline code spans and fenced code blocks, line by line. */
function codeLines(text: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (fenced) lines.push(line);
    else for (const m of line.matchAll(/`([^`]+)`/g)) lines.push(m[1]!);
  }
  return lines;
}

/** Plugins a page defines (`definePlugin({ name: 'x'`) or scaffolds (`mcp-toolkit init x`) as examples. */
function examplePlugins(text: string): string[] {
  const defined = [...text.matchAll(/definePlugin(?:<[^>]*>)?\(\{\s*name:\s*'([a-z][a-z0-9-]*)'/g)];
  const scaffolded = [...text.matchAll(/mcp-toolkit init ([a-z][a-z0-9-]*)/g)];
  return [...defined, ...scaffolded].map((m) => m[1]!);
}

test('every MCP_* setting named in README.md and docs/*.md exists', async () => {
  const known = await knownSettings();
  const problems: string[] = [];
  for (const page of pages) {
    const text = read(page);
    const examplePrefixes = examplePlugins(text).map((name) => settingEnvName(name, 'x').slice(0, -1));
    // Not preceded by a word character: ERR_MCP_* are error codes, not settings.
    for (const [token] of text.matchAll(/(?<![A-Za-z0-9_])MCP_[A-Z0-9_]*[A-Z0-9_]/g)) {
      const ok = token.endsWith('_')
        ? [...known.names].some((n) => n.startsWith(token)) || examplePrefixes.includes(token)
        : known.names.has(token) || examplePrefixes.some((p) => token.startsWith(p));
      if (!ok) problems.push(`${page}: ${token}`);
    }
  }
  assert.deepEqual(problems, [], 'settings named in the docs but not in any schema');
});

test('every mcp-toolkit command and npm script named in the docs exists', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, '--help'], { cwd: REPO_ROOT });
  const commands = new Set([...stdout.matchAll(/^\s*mcp-toolkit ([a-z][a-z-]*)/gm)].map((m) => m[1]!));
  assert.ok(commands.has('run'), `parsed the help: ${[...commands].join(', ')}`);
  const problems: string[] = [];
  // The roadmap names planned commands on purpose.
  for (const page of pages.filter((p) => p !== 'docs/roadmap.md')) {
    for (const line of codeLines(read(page))) {
      const cli = /(?:^\s*(?:\$\s*)?|npx\s+|bin\/)mcp-toolkit(?:\.js)? ([a-z][a-z-]*)/.exec(line);
      if (cli && !commands.has(cli[1]!)) problems.push(`${page}: mcp-toolkit ${cli[1]}`);
      for (const m of line.matchAll(/\bnpm (?:run ([a-z][\w:-]*)|(start|test)\b)/g)) {
        const script = m[1] ?? m[2]!;
        if (!(script in pkg.scripts)) problems.push(`${page}: npm run ${script}`);
      }
    }
  }
  assert.deepEqual(
    problems,
    [],
    'commands named in the docs that `mcp-toolkit --help` or package.json scripts lack (a new command belongs in src/cli/main.ts and its HELP)',
  );
});

test('docs/dependencies.md has one line per runtime dependency, and none for anything else', () => {
  const rows = new Map<string, string>();
  for (const line of read('docs/dependencies.md').split('\n')) {
    const m = /^\| `([^`]+)` \|(.+)\|(.+)\|$/.exec(line);
    if (m) rows.set(m[1]!, `${m[2]} ${m[3]}`);
  }
  const deps = Object.keys(pkg.dependencies);
  assert.deepEqual(
    deps.filter((d) => !rows.has(d)),
    [],
    'runtime dependencies without a line in docs/dependencies.md',
  );
  assert.deepEqual(
    [...rows.keys()].filter((d) => !deps.includes(d)),
    [],
    'lines for packages that are not runtime dependencies',
  );
  for (const [dep, text] of rows) assert.ok(text.trim().length > 80, `${dep}: say what it does and why`);
});

test('every installed package with an install script is allowed or denied in package.json (docs/dependencies.md)', async (t) => {
  // `npm install-scripts` comes with npm 11.16; an older npm has no allowScripts to check.
  const listed = await promisify(execFile)('npm', ['install-scripts', 'ls'], { cwd: REPO_ROOT }).catch(
    (err: { stdout?: string; stderr?: string }) => err,
  );
  const out = `${listed.stdout ?? ''}${listed.stderr ?? ''}`;
  if (/Unknown command|not a valid|npm <command>/i.test(out)) {
    t.skip(`this npm has no install-scripts command: ${out.split('\n')[0]}`);
    return;
  }
  assert.match(out, /No packages with unreviewed install scripts/, out);
  const allowed = Object.keys((pkg as { allowScripts?: Record<string, boolean> }).allowScripts ?? {});
  for (const name of allowed) assert.match(read('docs/dependencies.md'), new RegExp(`\`${name}\``), name);
});

test('relative links of every page (README.md, docs/, docs/internals/) resolve', () => {
  const broken: string[] = [];
  for (const page of pages) {
    for (const [, target] of read(page).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      if (!existsSync(path.join(REPO_ROOT, path.dirname(page), target!))) broken.push(`${page} → ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});
