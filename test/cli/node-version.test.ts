import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';

// The machine's own Node (CI provisions Node 24 in front of it on PATH). When it is older
// than 22.18, `npm start` and `npm test` must stop at once with one line saying what to do.
const OLD_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => {
  if (!existsSync(p)) return false;
  const v = spawnSync(p, ['-p', 'process.versions.node'], { encoding: 'utf8' })
    .stdout.trim()
    .split('.')
    .map(Number);
  return (v[0] ?? 0) < 22 || (v[0] === 22 && (v[1] ?? 0) < 18);
});

test('an old Node gets one line naming the version needed', {
  skip: OLD_NODE ? false : 'no Node older than 22.18 here',
}, () => {
  const root = new URL('../../', import.meta.url);
  for (const script of ['scripts/check-node.mjs', 'bin/mcp-toolkit.js']) {
    const r = spawnSync(OLD_NODE!, [script, 'run'], { cwd: root, encoding: 'utf8', timeout: 10_000 });
    assert.equal(r.status, 1, script);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /needs Node\.js >= 22\.18/);
  }
});

test('the current Node passes the check silently', () => {
  const r = spawnSync(process.execPath, ['scripts/check-node.mjs'], {
    cwd: new URL('../../', import.meta.url),
    encoding: 'utf8',
  });
  assert.equal(r.status, 0);
  assert.equal(r.stderr, '');
});
