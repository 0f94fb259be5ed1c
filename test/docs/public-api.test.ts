/**
 * docs/api.md is the public API, name by name: each entry of package.json's `exports` has its
 * section there, and the names a section's tables list are exactly the names that entry's
 * file exports (read with TypeScript's parser, types included). So a new export fails here
 * until it is documented, and so does a documented name that is no longer exported. And every
 * `import { ... } from '@mcp-toolkit/server...'` on any page (in a code block of any language)
 * names only what that entry exports.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { docPages } from '../helpers/doc-blocks.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

const PACKAGE = '@mcp-toolkit/server';
const read = (rel: string) => readFileSync(path.join(REPO_ROOT, rel), 'utf8');

/** `@mcp-toolkit/server/fetch` → `src/fetch.ts`, for every TypeScript entry of package.json. */
function entries(): Map<string, string> {
  const pkg = JSON.parse(read('package.json')) as { exports: Record<string, string> };
  return new Map(
    Object.entries(pkg.exports)
      .filter(([, file]) => file.endsWith('.ts'))
      .map(([key, file]) => [key === '.' ? PACKAGE : `${PACKAGE}/${key.slice(2)}`, file.slice(2)]),
  );
}

/** The names a module exports: `export { a, type B } from`, and `export const/function/class/interface/type`. */
function exportedNames(file: string): Set<string> {
  const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, false);
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      assert.ok(statement.exportClause, `${file}: \`export *\` hides what is public; name each export`);
      if (ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) names.add(element.name.text);
      }
      continue;
    }
    const exported = ts.canHaveModifiers(statement)
      ? ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      : false;
    if (!exported) continue;
    if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) {
        if (ts.isIdentifier(d.name)) names.add(d.name.text);
      }
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement)) &&
      statement.name
    ) {
      names.add(statement.name.text);
    }
  }
  return names;
}

/** docs/api.md's sections (`` ## `@mcp-toolkit/server/fetch` ``) and the names their tables list. */
function documented(): Map<string, Set<string>> {
  const sections = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const line of read('docs/api.md').split('\n')) {
    const heading = /^## `([^`]+)`/.exec(line);
    if (heading) {
      current = new Set();
      sections.set(heading[1]!, current);
      continue;
    }
    const row = /^\| `([A-Za-z_$][\w$]*)` \|/.exec(line);
    if (row && current) current.add(row[1]!);
  }
  return sections;
}

test('docs/api.md has one section per entry of package.json, and no other', () => {
  assert.deepEqual([...documented().keys()].sort(), [...entries().keys()].sort());
});

test('each entry exports exactly the names docs/api.md lists for it', () => {
  const docs = documented();
  const problems: string[] = [];
  for (const [entry, file] of entries()) {
    const exported = exportedNames(file);
    const listed = docs.get(entry) ?? new Set<string>();
    for (const name of exported) {
      if (!listed.has(name)) problems.push(`${entry} exports ${name} (${file}): add a row to docs/api.md`);
    }
    for (const name of listed) {
      if (!exported.has(name))
        problems.push(`docs/api.md lists ${name} under ${entry}, which does not export it`);
    }
  }
  assert.deepEqual(problems, []);
});

test('the root entry stays small: the API a plugin author reads', () => {
  const root = exportedNames(entries().get(PACKAGE)!);
  assert.ok(root.size >= 20 && root.size <= 50, `${root.size} names: ${[...root].join(', ')}`);
  for (const internal of ['VERSION_2026', 'SUPPORTED_VERSIONS', 'Wire', 'RequestId']) {
    assert.ok(!root.has(internal), `${internal} belongs on ${PACKAGE}/protocol`);
  }
});

test("the pages import from the package's entries only names they export", () => {
  const exports = new Map([...entries()].map(([entry, file]) => [entry, exportedNames(file)]));
  const problems: string[] = [];
  const IMPORT =
    /import\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?\{([^}]*)\}\s*from\s*['"](@mcp-toolkit\/server[^'"]*)['"]/g;
  for (const page of docPages()) {
    for (const [, list, entry] of read(page).matchAll(IMPORT)) {
      const names = exports.get(entry!);
      if (!names) {
        problems.push(`${page}: ${entry} is not an entry of the package`);
        continue;
      }
      for (const part of list!.split(',')) {
        const name = part
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0]!;
        if (name !== '' && !names.has(name)) problems.push(`${page}: ${name} is not exported by ${entry}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});
