#!/usr/bin/env node
// The mcp-toolkit command. Plain JavaScript so that an old Node.js gets a clear message
// instead of a syntax error; the real CLI is TypeScript, run by Node's type stripping (or
// its build in dist/ when installed from npm).
var need = [22, 18];
var have = process.versions.node.split('.').map(Number);
if (have[0] < need[0] || (have[0] === need[0] && have[1] < need[1])) {
  process.stderr.write(
    'mcp-toolkit needs Node.js >= 22.18 (Node 24 LTS recommended); this is ' + process.version + '.\n',
  );
  process.exit(1);
}
// A clone runs the TypeScript sources as they are; the installed package is the build
// (scripts/build.ts: JavaScript beside this file's folder, as Node does not strip types under
// node_modules), with no .ts files.
var source = new URL('../src/cli/main.ts', import.meta.url);
var built = new URL('../src/cli/main.js', import.meta.url);
Promise.all([import('node:fs'), import('node:module')])
  .then(([fs, mod]) => {
    // Node's on-disk compile cache (type-stripped sources, V8 code): every start after the
    // first skips most of the loading (start-up to the first answer over stdio in
    // `npm run bench`: 0.6-0.8 s before, 0.34 s after). It lives in NODE_COMPILE_CACHE or the
    // temp folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off, and a folder that cannot be
    // written just means no cache.
    try {
      mod.enableCompileCache?.();
    } catch {}
    return import(fs.existsSync(source) ? source.href : built.href);
  })
  .then(
    (cli) => cli.main(process.argv.slice(2)),
    (err) => {
      process.stderr.write(`${err?.stack ?? err}\n`);
      process.exit(1);
    },
  );
