/**
 * Every TypeScript block in README.md and docs/*.md compiles and runs, so an example cannot
 * drift from the code: the blocks are written out as files (test/helpers/doc-blocks.ts),
 * type-checked together with the strict tsconfig, and then run as a reader would run them:
 * a `*.test.ts` block under `node --test`, a plugin (`plugins/<name>/index.ts`) loaded into a
 * TestClient, which runs its register step and lists what it added, any other block as a
 * script (`node file.ts`).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { docBlocks, layOut, runKind } from '../helpers/doc-blocks.ts';
import { childEnv, REPO_ROOT } from '../helpers/spawn-server.ts';

const blocks = docBlocks();
const dir = layOut(blocks, `doc-blocks-${process.pid}`);
after(() => rmSync(dir, { recursive: true, force: true }));

/** `plugins/x/index.ts(12,5): error ...` → `docs/plugins.md:57 (plugins/x/index.ts:12:5): error ...`. */
function onPages(output: string): string {
  return output.replace(
    /^([\w./-]+\.ts)\((\d+),(\d+)\)/gm,
    (whole, file: string, line: string, col: string) => {
      const block = blocks.find((b) => b.file === file);
      return block ? `${block.page}:${block.line + Number(line)} (${file}:${line}:${col})` : whole;
    },
  );
}

// No MCP_* settings of the developer's, no test-runner marker (a nested run would report to us).
const env = () => {
  const { NODE_TEST_CONTEXT: _, ...rest } = childEnv({ MCP_LOG_LEVEL: 'warn' });
  return rest;
};

/**
 * A child's bound: tsc over every block takes about 30 s of CPU, which under a load average of
 * 40 on two cores passed 120 s (the run was killed: status null, no diagnostics).
 */
const CHILD_TIMEOUT_MS = 360_000;

function node(args: string[], timeout = 120_000) {
  const r = spawnSync(process.execPath, args, { cwd: dir, env: env(), encoding: 'utf8', timeout });
  const killed =
    r.status === null ? `\n(killed after ${timeout / 1000} s: ${r.signal ?? r.error?.message})` : '';
  return { status: r.status, output: `${r.stdout}\n${r.stderr}${killed}`, error: r.error };
}

test('the pages have TypeScript blocks to check', () => {
  assert.ok(blocks.length >= 10, `found ${blocks.length}`);
  for (const page of ['README.md', 'docs/plugins.md']) {
    assert.ok(
      blocks.some((b) => b.page === page),
      `${page} has TypeScript blocks`,
    );
  }
});

test('every block type-checks (strict tsconfig)', { timeout: CHILD_TIMEOUT_MS + 30_000 }, () => {
  const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
  const r = node([tsc, '--noEmit', '-p', 'tsconfig.json'], CHILD_TIMEOUT_MS);
  assert.equal(r.status, 0, onPages(r.output));
});

describe('every block runs', () => {
  const testClient = pathToFileURL(path.join(REPO_ROOT, 'src/testing/index.ts')).href;
  for (const block of blocks) {
    const kind = runKind(block);
    test(`${block.page}:${block.line} (${block.file}, ${kind})`, () => {
      const url = pathToFileURL(path.join(dir, block.file)).href;
      let r: ReturnType<typeof node>;
      if (kind === 'test') {
        r = node(['--test', '--test-reporter=spec', block.file]);
      } else if (kind === 'plugin') {
        const load = `const { TestClient } = await import(${JSON.stringify(testClient)});
          const plugin = (await import(${JSON.stringify(url)})).default;
          if (!plugin || typeof plugin.register !== 'function') throw new Error('no definePlugin(...) default export');
          const client = await TestClient.start({ plugins: [plugin] });
          const listed = [...(await client.listTools())];
          await client.close();
          console.log('registered', plugin.name, listed.length, 'tools');`;
        r = node(['--input-type=module', '-e', load]);
      } else if (kind === 'module') {
        r = node(['--input-type=module', '-e', `await import(${JSON.stringify(url)});`]);
      } else {
        r = node([block.file]);
      }
      assert.equal(r.error, undefined, `${block.page}:${block.line}: ${r.error?.message}`);
      assert.equal(r.status, 0, `${block.page}:${block.line} failed:\n${r.output}`);
    });
  }
});
