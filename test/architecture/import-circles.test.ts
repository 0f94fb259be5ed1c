/**
 * No import circle among the files of src/ and plugins/ (docs/internals/architecture.md, "No
 * import circle"): a file is read after everything it imports, type imports included, so a
 * reader can start at the bottom and never meet a file that leans on one not yet read. Where two
 * concepts seem to need each other, the one lower down declares the narrow interface it needs
 * (as the wire profile does for the exchange, the record and the request context it is handed),
 * or the piece both need moves to a file of its own below them. The test fails naming the files
 * of each circle and, for each, the files of the circle it imports.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PROTOCOL = path.join(ROOT, 'src', 'protocol');
/** Where the circles are looked for: the server and the bundled plugins. */
const TREES = [path.join(ROOT, 'src'), path.join(ROOT, 'plugins')];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** `import`, `import type`, `export … from` and `import()`, with comments blanked first. */
const SPECIFIER =
  /(?:^|[\s;}])(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The relative imports of `text` (a file at `file`), resolved to absolute paths. */
function importsIn(text: string, file: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const out: string[] = [];
  for (const m of code.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2];
    // A specifier built from a template (`../plugins/${name}/index.ts`) is text the file writes
    // out (the plugin scaffold of cli/init.ts), not an import of its own.
    if (spec?.startsWith('.') && !spec.includes('${')) out.push(path.resolve(path.dirname(file), spec));
  }
  return out;
}

/** Every circle of the graph (Tarjan's strongly connected components of two files or more, or a file importing itself). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** The files of src/ and plugins/ and, for each, the files of those trees it imports. */
function sourceGraph(): Map<string, string[]> {
  const files = TREES.flatMap((tree) => sources(tree));
  const rel = (f: string) => path.relative(ROOT, f).split(path.sep).join('/');
  const inTrees = (t: string) => TREES.some((tree) => !path.relative(tree, t).startsWith('..'));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = importsIn(readFileSync(file, 'utf8'), file)
      .filter(inTrees)
      .map((t) => {
        assert.ok(existsSync(t), `${rel(file)} imports ${rel(t)}, which does not exist`);
        return rel(t);
      });
    graph.set(rel(file), [...new Set(targets)]);
  }
  return graph;
}

/** Each circle as `file -> the files of the circle it imports`, one line per file. */
function describe(found: readonly string[][], graph: ReadonlyMap<string, readonly string[]>): string[] {
  return found.map((c) =>
    c.map((f) => `${f} -> ${(graph.get(f) ?? []).filter((t) => c.includes(t)).join(', ')}`).join('\n'),
  );
}

test('no import circle among the files of src/ and plugins/, type imports included', () => {
  const graph = sourceGraph();
  for (const file of [
    'src/protocol/wires/profile.ts',
    'src/protocol/dispatcher.ts',
    'src/registry/registry.ts',
    'src/testing/client/probe-client.ts',
    'plugins/proxy/index.ts',
  ])
    assert.ok(graph.has(file), `${file} is scanned`);
  assert.deepEqual(describe(circles(graph), graph), []);
});

test('the scan sees type imports, re-exports and dynamic imports, and finds a circle of them', () => {
  const file = path.join(PROTOCOL, 'a.ts');
  const text = [
    "import type { B } from './b.ts';",
    "import { type C, d } from './c.ts';",
    "export { E } from './wires/e.ts';",
    "const f = await import('./f.ts');",
    "// import { G } from './g.ts';",
    "/* import { H } from './h.ts'; */",
    "import { z } from 'zod';",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the scanned file writes out a template
    "const scaffold = `import plugin from '../plugins/${name}/index.ts';`;",
  ].join('\n');
  assert.deepEqual(
    importsIn(text, file).map((t) => path.relative(PROTOCOL, t)),
    ['b.ts', 'c.ts', path.join('wires', 'e.ts'), 'f.ts'],
  );
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a', 'd']],
    ['d', []],
    ['e', ['e']],
  ]);
  assert.deepEqual(circles(graph), [['a', 'b', 'c'], ['e']]);
  assert.deepEqual(
    circles(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    [],
  );
});
