import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ErrorCode, InternalCode } from '../../src/base/errors.ts';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

test('every JSON-RPC error code is documented in docs/errors.md with its name', () => {
  for (const [name, code] of Object.entries(ErrorCode)) {
    assert.match(
      doc,
      new RegExp(`\\|\\s*${code}\\s*\\|\\s*\`${name}\`\\s*\\|`),
      `${name} (${code}) is missing from docs/errors.md`,
    );
  }
});

test('every internal error code is documented', () => {
  for (const code of Object.values(InternalCode)) {
    assert.ok(doc.includes(`\`${code}\``), `${code} is missing from docs/errors.md`);
  }
});

// The protocol engine and plugins use ErrorCode names; the CLI and the test kit may name codes
// in text written for people (help, check descriptions), so they are not scanned.
test('no numeric -32xxx code is written inline in the engine or plugins outside errors.ts', () => {
  const root = new URL('../../', import.meta.url);
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(new URL(dir, root), { withFileTypes: true })) {
      const rel = `${dir}${entry.name}`;
      if (entry.isDirectory()) {
        if (rel !== 'src/testing' && rel !== 'src/cli') walk(`${rel}/`);
      } else if (rel.endsWith('.ts') && rel !== 'src/base/errors.ts') {
        readFileSync(new URL(rel, root), 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (/-32\d{3}\b/.test(line) && !/^\s*(\*|\/\/|\/\*)/.test(line))
              offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
          });
      }
    }
  };
  walk('src/');
  walk('plugins/');
  assert.deepEqual(offenders, []);
});
