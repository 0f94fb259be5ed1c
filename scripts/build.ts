/**
 * `npm run build`: the package as npm users install it, in dist/. The clone runs the
 * TypeScript sources as they are, but Node does not strip types under node_modules, so the
 * published package is JavaScript and declarations (dist/src, dist/plugins; tsconfig.build.json,
 * whose `rewriteRelativeImportExtensions` turns `.ts` imports into `.js`), with its own
 * package.json: the same name, version, command and dependencies, and `exports` that point at
 * the build instead of the sources. `npm run package` builds and packs it (`npm pack ./dist`).
 * Of plugins/, only the bundled plugins (scripts/bundled-plugins.ts, the list docs/plugins.md
 * shows) are built: any other folder there is the clone owner's own and stays out of dist/.
 * `create-mcp-toolkit` (packages/create-mcp-toolkit, behind `npm create mcp-toolkit`) is built
 * beside it into dist-create/, with the same version: the projects it writes depend on it.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { selectPlugins } from './bundled-plugins.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const distCreate = path.join(root, 'dist-create');
const createSource = path.join(root, 'packages/create-mcp-toolkit');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');

interface Manifest {
  name: string;
  version: string;
  description?: string;
  license?: string;
  engines?: Record<string, string>;
  bin: Record<string, string>;
  exports: Record<string, string>;
  dependencies?: Record<string, string>;
}

/** `./src/index.ts` → `{ types: './src/index.d.ts', default: './src/index.js' }`. */
function built(target: string): string | { types: string; default: string } {
  if (!target.endsWith('.ts')) return target;
  const base = target.slice(0, -'.ts'.length);
  return { types: `${base}.d.ts`, default: `${base}.js` };
}

/**
 * tsconfig.build.json narrowed to src/ and the bundled plugins, written to a temporary folder
 * (paths absolute, so nothing is written into the clone).
 */
function buildConfig(bundled: readonly string[]): { file: string; dir: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-toolkit-build-'));
  const file = path.join(dir, 'tsconfig.json');
  const config = {
    extends: path.join(root, 'tsconfig.build.json'),
    // `types: ["node"]` is looked up from the config's folder: point it at the clone's.
    compilerOptions: { typeRoots: [path.join(root, 'node_modules/@types')] },
    include: [path.join(root, 'src'), ...bundled.map((name) => path.join(root, 'plugins', name))],
    exclude: [path.join(root, 'plugins/*/view/src')],
  };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return { file, dir };
}

const plugins = selectPlugins(path.join(root, 'plugins'));
if (plugins.leftOut.length > 0) {
  console.log(`build: not bundled, left out of the package: plugins/${plugins.leftOut.join(', plugins/')}`);
}
rmSync(dist, { recursive: true, force: true });
const config = buildConfig(plugins.bundled);
const result = spawnSync(process.execPath, [tsc, '-p', config.file], { cwd: root, stdio: 'inherit' });
rmSync(config.dir, { recursive: true, force: true });
if (result.status !== 0) {
  console.error('build: tsc failed; nothing usable in dist/');
  process.exit(result.status ?? 1);
}
// A bundled plugin or src/ importing another folder of plugins/ would pull it in: refuse.
const strays = readdirSync(path.join(dist, 'plugins')).filter((name) => !plugins.bundled.includes(name));
if (strays.length > 0) {
  console.error(`build: dist/plugins holds plugins that are not bundled: ${strays.join(', ')}`);
  process.exit(1);
}
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
const manifest = {
  name: pkg.name,
  version: pkg.version,
  description: pkg.description,
  license: pkg.license,
  type: 'module',
  bin: pkg.bin,
  exports: Object.fromEntries(Object.entries(pkg.exports).map(([key, target]) => [key, built(target)])),
  engines: pkg.engines,
  dependencies: pkg.dependencies,
};
writeFileSync(path.join(dist, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
mkdirSync(path.join(dist, 'bin'), { recursive: true });
for (const file of Object.values(pkg.bin)) copyFileSync(path.join(root, file), path.join(dist, file));
copyFileSync(path.join(root, 'README.md'), path.join(dist, 'README.md'));
// Plugin views (MCP Apps) are built HTML that tsc does not emit: copied beside their plugin.
for (const view of ['plugins/filesystem/view/file-browser.html']) {
  copyFileSync(path.join(root, view), path.join(dist, view));
}
// The MCP Registry's schema that `publish-info` validates server.json against.
mkdirSync(path.join(dist, 'src/cli/registry'), { recursive: true });
for (const data of ['src/cli/registry/server.schema.json']) {
  copyFileSync(path.join(root, data), path.join(dist, data));
}
console.log(`build: dist/ ready (${pkg.name} ${pkg.version}); npm pack ./dist packs it`);

/** create-mcp-toolkit: its sources compiled, its package.json given the toolkit's version. */
function buildCreate(version: string): void {
  rmSync(distCreate, { recursive: true, force: true });
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-toolkit-build-create-'));
  const file = path.join(dir, 'tsconfig.json');
  const createConfig = {
    extends: path.join(root, 'tsconfig.build.json'),
    compilerOptions: {
      typeRoots: [path.join(root, 'node_modules/@types')],
      rootDir: createSource,
      outDir: distCreate,
      declaration: false,
    },
    include: [path.join(createSource, 'src')],
    exclude: [],
  };
  writeFileSync(file, `${JSON.stringify(createConfig, null, 2)}\n`);
  const built = spawnSync(process.execPath, [tsc, '-p', file], { cwd: root, stdio: 'inherit' });
  rmSync(dir, { recursive: true, force: true });
  if (built.status !== 0) {
    console.error('build: tsc failed for create-mcp-toolkit; nothing usable in dist-create/');
    process.exit(built.status ?? 1);
  }
  const template = JSON.parse(readFileSync(path.join(createSource, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const { name, description, license, type, bin, engines } = template;
  writeFileSync(
    path.join(distCreate, 'package.json'),
    `${JSON.stringify({ name, version, description, license, type, bin, engines }, null, 2)}\n`,
  );
  copyFileSync(path.join(createSource, 'README.md'), path.join(distCreate, 'README.md'));
  console.log(`build: dist-create/ ready (create-mcp-toolkit ${version}); npm pack ./dist-create packs it`);
}

buildCreate(pkg.version);
