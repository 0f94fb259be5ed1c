/**
 * Types that carry, pinned: `tsc` over the fixtures in test/types/fixtures, whose
 * `// @ts-expect-error` lines must each be an error (an unused one fails the compile), so a
 * plugin's settings typed from its schema, a tool's arguments typed from its input schema, a
 * wrong-shaped return refused for its output schema and a plain literal accepted for its enum
 * and literal fields stay that way. And the public entry
 * point's values are exactly the API (the define* functions, errors, the settings pieces, the
 * schema keywords, the redaction helper for middleware): nothing internal; the version
 * constants and wire keys are on the protocol entry.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

test('the type fixtures compile, every @ts-expect-error included', () => {
  const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', 'test/types'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('the public entry point exports the API and nothing internal', async () => {
  const api = await import('@mcp-toolkit/server');
  assert.deepEqual(Object.keys(api).sort(), [
    'ErrorCode',
    'InternalCode',
    'LOG_LEVELS',
    'ProtocolError',
    'ToolError',
    'ToolkitError',
    'createServer',
    'defineApp',
    'definePlugin',
    'definePrompt',
    'defineResource',
    'defineResourceTemplate',
    'defineTool',
    'redactArgs',
    'schemaKeywords',
    'serve',
    'setting',
  ]);
});

test('the protocol entry point holds the versions and the wire keys', async () => {
  const api = await import('@mcp-toolkit/server/protocol');
  assert.deepEqual(Object.keys(api).sort(), [
    'APP_MIME_TYPE',
    'ERRORS_META_KEY',
    'ERROR_META_KEY',
    'LATEST_2025',
    'SUPPORTED_VERSIONS',
    'UI_EXTENSION',
    'VERSION_2026',
  ]);
});

test('the fetch entry point exports the handler and its options, nothing else', async () => {
  const api = await import('@mcp-toolkit/server/fetch');
  assert.deepEqual(Object.keys(api).sort(), ['createFetchHandler', 'fetchHandlerOptions']);
});
