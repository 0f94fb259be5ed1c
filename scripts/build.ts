/**
 * `npm run build`: emits JavaScript and type declarations into dist/ (dist/src, dist/plugins)
 * for people who install the package instead of cloning it: Node does not strip types under
 * node_modules. `rewriteRelativeImportExtensions` turns the sources' `.ts` imports into `.js`.
 * dist/package.json carries the version (src/server.ts reads ../package.json) and the module type.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');

rmSync(dist, { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], {
  cwd: root,
  stdio: 'inherit',
});
if (result.status !== 0) {
  console.error('build: tsc failed; nothing usable in dist/');
  process.exit(result.status ?? 1);
}
// Plugin views (MCP Apps) are built HTML that tsc does not emit: copied beside their plugin.
for (const view of ['plugins/filesystem/view/file-browser.html']) {
  copyFileSync(path.join(root, view), path.join(dist, view));
}
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};
writeFileSync(
  path.join(dist, 'package.json'),
  `${JSON.stringify({ name: `${pkg.name}-dist`, version: pkg.version, private: true, type: 'module' }, null, 2)}\n`,
);
console.log(`build: dist/ ready (${pkg.name} ${pkg.version})`);
