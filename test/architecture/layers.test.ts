/**
 * The house keeps its shape (docs/internals/architecture.md, "The layers"). A unit is a folder of src/
 * (protocol, registry, assembly, ...) or a top-level file (one of the public entries: index.ts, fastify.ts, ...); every relative
 * import (static, `export ... from`, or dynamic `import()`) is mapped to the unit it reaches.
 * The test fails when an import goes up the layers drawn in docs/internals/architecture.md ("The
 * layers", the same list as LAYERS below), when two units import each other, when src/base
 * imports anything of ours,
 * when anything under src/ imports plugins/, when the protocol reaches the transports or the
 * CLI, when the test kit (src/testing/) imports anything of ours but the public entries (src/index.ts, src/protocol.ts) and src/base/, when a plugin imports the toolkit other than through its public entry, or when a file
 * under src/ or plugins/ grows past 400 lines, or when code under src/transports/ reads an
 * `MCP_*` setting (the transports take options named for what they do, built from the
 * settings once where the server is assembled: src/assembly/transport-options.ts), or when a handler
 * is run outside src/execution/ (a deadline started, or a timer or abort controller held by the
 * registry, which holds definitions and lookup only).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SETTING_NAMES } from '../../src/config/settings.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = path.join(ROOT, 'src');
const PLUGINS = path.join(ROOT, 'plugins');
const MAX_LINES = 400;

/** The layers of docs/internals/architecture.md, bottom first: a unit imports only from its own layer or below. */
const LAYERS: readonly (readonly string[])[] = [
  ['base'],
  ['redis'],
  ['registry'],
  ['execution'],
  ['protocol'],
  ['auth', 'ratelimit'],
  ['tasks', 'skills', 'discovery', 'telemetry', 'plugin'],
  ['config'],
  ['transports'],
  ['scale'],
  ['assembly'],
  ['cli', 'testing', 'index.ts', 'fastify.ts', 'fetch.ts', 'protocol.ts'],
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sources(full);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const SPECIFIER =
  /(?:^|[\s;}])(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every relative import of a file, resolved to an absolute path. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2];
    if (spec?.startsWith('.')) out.push(path.resolve(path.dirname(file), spec));
  }
  return out;
}

/** `protocol`, `server.ts`, or `plugins` / `outside` for what is not under src/. */
function unitOf(file: string): string {
  const rel = path.relative(SRC, file);
  if (rel.startsWith('..')) return path.relative(PLUGINS, file).startsWith('..') ? 'outside' : 'plugins';
  return rel.split(path.sep)[0] as string;
}

const srcFiles = sources(SRC);
const edges = new Map<string, string[]>();
for (const file of srcFiles) {
  for (const target of importsOf(file)) {
    const from = unitOf(file);
    const to = unitOf(target);
    if (from === to) continue;
    const key = `${from} -> ${to}`;
    edges.set(key, [
      ...(edges.get(key) ?? []),
      `${path.relative(ROOT, file)} imports ${path.relative(ROOT, target)}`,
    ]);
  }
}

test('every unit has its layer, and imports go down the layers (or sideways), never up', () => {
  const rank = new Map(LAYERS.flatMap((layer, i) => layer.map((unit) => [unit, i] as const)));
  const units = new Set(srcFiles.map(unitOf));
  const unranked = [...units]
    .filter((u) => !rank.has(u))
    .map((u) => `${u}: add it to LAYERS and to docs/internals/architecture.md`);
  const upward = [...edges.entries()]
    .filter(([key]) => {
      const [from, to] = key.split(' -> ') as [string, string];
      return rank.has(from) && rank.has(to) && (rank.get(to) as number) > (rank.get(from) as number);
    })
    .map(([key, why]) => `${key}: ${why[0]}`);
  assert.deepEqual([...unranked, ...upward], []);
});

test('no two units of src/ import each other: each pair has one direction', () => {
  const cycles: string[] = [];
  for (const key of edges.keys()) {
    const [from, to] = key.split(' -> ') as [string, string];
    if (from < to && edges.has(`${to} -> ${from}`)) {
      cycles.push(`${from} <-> ${to}: ${edges.get(key)?.[0]}; ${edges.get(`${to} -> ${from}`)?.[0]}`);
    }
  }
  assert.deepEqual(cycles, []);
});

test('src/base imports nothing of ours', () => {
  const found = [...edges.entries()].filter(([key]) => key.startsWith('base -> ')).flatMap(([, why]) => why);
  assert.deepEqual(found, []);
});

test('nothing under src/ imports plugins/', () => {
  const found = [...edges.entries()].filter(([key]) => key.endsWith(' -> plugins')).flatMap(([, why]) => why);
  assert.deepEqual(found, []);
});

test('the test kit (src/testing/) imports nothing of ours but the public entries and src/base/', () => {
  // It drives a server as a user would: createServer() and its handle's connect(), so it could
  // be published as a package of its own on top of @mcp-toolkit/server.
  const allowed = new Set(['base', 'index.ts', 'protocol.ts', 'testing']);
  const testing = srcFiles.filter((file) => unitOf(file) === 'testing');
  assert.ok(testing.length > 20, 'the test kit was found');
  const found = testing.flatMap((file) =>
    importsOf(file)
      .filter((target) => !allowed.has(unitOf(target)))
      .map((target) => `${path.relative(ROOT, file)} imports ${path.relative(ROOT, target)}`),
  );
  assert.deepEqual(found, []);
});

test('the protocol imports neither the transports nor the CLI', () => {
  const found = ['protocol -> transports', 'protocol -> cli'].flatMap((key) => edges.get(key) ?? []);
  assert.deepEqual(found, []);
});

test('plugins import the toolkit only through its public entry (@mcp-toolkit/server)', () => {
  const found = sources(PLUGINS).flatMap((file) =>
    importsOf(file)
      .filter((target) => !path.relative(SRC, target).startsWith('..'))
      .map((target) => `${path.relative(ROOT, file)} imports ${path.relative(ROOT, target)}`),
  );
  assert.deepEqual(found, []);
});

test(`no file under src/ or plugins/ is over ${MAX_LINES} lines`, () => {
  const long = [...srcFiles, ...sources(PLUGINS)]
    .map((file) => ({
      file: path.relative(ROOT, file),
      lines: readFileSync(file, 'utf8').split('\n').length - 1,
    }))
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `${f.file}: ${f.lines} lines`);
  assert.deepEqual(long, []);
});

test('one place runs a handler: deadlines start in src/execution/ only, and the registry keeps no timer', () => {
  const found = srcFiles.flatMap((file) => {
    const rel = path.relative(ROOT, file);
    const unit = unitOf(file);
    const code = codeOf(file);
    const deadlines =
      unit === 'execution' || !/\.withDeadline\(/.test(code) ? [] : [`${rel} starts a deadline`];
    const running =
      unit === 'registry' && /\b(setTimeout|setInterval|AbortController)\b/.test(code)
        ? [`${rel} runs something: its place is src/execution/`]
        : [];
    return [...deadlines, ...running];
  });
  assert.deepEqual(found, []);
});

/** A file's code without its comments (a comment may name the setting an option comes from). */
function codeOf(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|\s)\/\/.*$/gm, '$1');
}

test('src/transports/ reads no MCP_* setting and never sees the Settings object', () => {
  const names = new Set<string>(SETTING_NAMES);
  const transports = srcFiles.filter((file) => unitOf(file) === 'transports');
  assert.ok(transports.length > 10, 'the transports were found');
  const found = transports.flatMap((file) => {
    const rel = path.relative(ROOT, file);
    const code = codeOf(file);
    // A setting's name anywhere in the code, or any `MCP_*` property read (`x.MCP_Y`, `x['MCP_Y']`).
    const reads = [...code.matchAll(/(\.\s*|\[\s*['"`])?\b(MCP_[A-Z0-9_]+)\b/g)]
      .filter((m) => names.has(m[2] as string) || m[1] !== undefined)
      .map((m) => `${rel} reads ${m[2]}`);
    const settings = importsOf(file)
      .filter((target) => unitOf(target) === 'config')
      .map((target) => `${rel} imports ${path.relative(ROOT, target)}`);
    return [...reads, ...settings];
  });
  assert.deepEqual(found, []);
});
