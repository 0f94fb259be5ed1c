/**
 * `MCP_API_KEYS_FILE` attacked: every way the file can be wrong (missing, unreadable, a
 * directory, a FIFO, too large, not JSON, the wrong shape, repeated ids or keys, an empty key)
 * is an InvalidSetting error that names the file and the entry, and never shows a key.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import {
  MAX_API_KEYS,
  MAX_API_KEYS_FILE_BYTES,
  parseApiKeysFile,
  readApiKeysFile,
} from '../../src/auth/api-key-file.ts';
import { authWarnings, configuredApiKeys, createAuthenticator } from '../../src/auth/create.ts';
import { type AuthSettings, authSettingsShape } from '../../src/auth/settings.ts';
import { InternalCode, ToolkitError } from '../../src/base/errors.ts';

const SECRET = 'secret-0123456789abcdef';
const OTHER = 'other-0123456789abcdef';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-keys-'));
});
after(() => rm(dir, { recursive: true, force: true }));

let n = 0;
async function file(content: string | Buffer): Promise<string> {
  const p = path.join(dir, `keys-${n++}.json`);
  await writeFile(p, content);
  return p;
}

/** The message of the InvalidSetting error `fn` throws; fails on anything else, or a leaked key. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ToolkitError, `expected a ToolkitError, got ${String(err)}`);
    assert.equal(err.code, InternalCode.InvalidSetting);
    for (const secret of [SECRET, OTHER]) {
      assert.ok(!err.message.includes(secret), `a key leaked: ${err.message}`);
      assert.ok(!err.message.includes(secret.slice(0, 12)), `part of a key leaked: ${err.message}`);
    }
    return err.message;
  }
  assert.fail('expected a refusal');
}

const entry = (fields: Record<string, unknown>) => ({ id: 'ci', key: SECRET, scopes: ['a'], ...fields });

describe('readApiKeysFile', () => {
  it('reads keys with scopes and an optional name (a UTF-8 BOM is fine)', async () => {
    const p = await file(
      `\uFEFF${JSON.stringify([
        { id: 'ci', key: SECRET, scopes: ['notes:read', 'notes:write'], name: 'CI pipeline' },
        { id: 'bot.2@team', key: OTHER, scopes: [] },
      ])}`,
    );
    assert.deepEqual(readApiKeysFile(p), [
      { id: 'ci', key: SECRET, scopes: ['notes:read', 'notes:write'], name: 'CI pipeline' },
      { id: 'bot.2@team', key: OTHER, scopes: [] },
    ]);
  });

  it('refuses a missing file, a directory, a path through a file, and says which', async () => {
    const missing = path.join(dir, 'nope.json');
    assert.match(
      refusal(() => readApiKeysFile(missing)),
      new RegExp(`^MCP_API_KEYS_FILE ${missing}: no such file`),
    );
    const sub = path.join(dir, 'a-directory');
    await mkdir(sub);
    assert.match(
      refusal(() => readApiKeysFile(sub)),
      /a-directory: is not a regular file/,
    );
    const through = path.join(await file('[]'), 'x');
    assert.match(
      refusal(() => readApiKeysFile(through)),
      /cannot be opened \(ENOTDIR\)/,
    );
  });

  it('refuses a FIFO at once instead of waiting for a writer, and a device', async (t) => {
    const fifo = path.join(dir, 'fifo');
    const made = spawnSync('mkfifo', [fifo]);
    if (made.status !== 0) return t.skip('mkfifo is not available');
    assert.match(
      refusal(() => readApiKeysFile(fifo)),
      /fifo: is not a regular file/,
    );
    assert.match(
      refusal(() => readApiKeysFile('/dev/zero')),
      /\/dev\/zero: is not a regular file/,
    );
  });

  it('refuses a file the server user cannot read (permission denied)', async (t) => {
    // root reads any file whatever its mode, so only another user can see this refusal.
    if (process.getuid?.() === 0) return t.skip('running as root, which may read any file');
    const p = await file(JSON.stringify([entry({})]));
    await chmod(p, 0o000);
    assert.match(
      refusal(() => readApiKeysFile(p)),
      /cannot be read \(permission denied\)/,
    );
  });

  it(`refuses a file larger than ${MAX_API_KEYS_FILE_BYTES} bytes before reading it`, async () => {
    const big = await file(Buffer.alloc(MAX_API_KEYS_FILE_BYTES + 1, 0x20));
    assert.match(
      refusal(() => readApiKeysFile(big)),
      /is 1048577 bytes, more than the 1048576/,
    );
    const exact = await file(
      Buffer.concat([Buffer.from('[]'), Buffer.alloc(MAX_API_KEYS_FILE_BYTES - 2, 0x20)]),
    );
    assert.deepEqual(readApiKeysFile(exact), []);
  });
});

describe('parseApiKeysFile', () => {
  const parse = (value: unknown) => () => parseApiKeysFile(JSON.stringify(value), 'keys.json');

  it('refuses text that is not JSON without quoting it', () => {
    for (const text of ['', `[{"id":"ci","key":"${SECRET}",}]`, `{${SECRET}`, '['.repeat(100_000)]) {
      assert.match(
        refusal(() => parseApiKeysFile(text, 'keys.json')),
        /^MCP_API_KEYS_FILE keys\.json: is not JSON/,
      );
    }
  });

  it('refuses a top level that is not an array, and too many entries', () => {
    for (const value of [{ ci: SECRET }, 'ci', null, 3]) {
      assert.match(refusal(parse(value)), /keys\.json: expected a JSON array/);
    }
    const many = Array.from({ length: MAX_API_KEYS + 1 }, (_, i) => ({
      id: `k${i}`,
      key: `k${i}-${SECRET}`,
      scopes: [],
    }));
    assert.match(refusal(parse(many)), /holds 10001 entries, more than the 10000 allowed/);
  });

  it('names the entry and the field that is wrong', () => {
    const cases: [unknown[], RegExp][] = [
      [[entry({}), 'ci'], /entry 2 is not an object/],
      [[[SECRET]], /entry 1 is not an object/],
      [[entry({ id: undefined })], /entry 1: "id" must be/],
      [[entry({ id: '' })], /entry 1: "id" must be/],
      [[entry({ id: 'bad id' })], /entry 1: "id" must be/],
      [[entry({ id: 'x'.repeat(129) })], /entry 1: "id" must be/],
      [[entry({ id: 7 })], /entry 1: "id" must be/],
      [[entry({ key: '' })], /entry 1 \("ci"\): "key" must be a non-empty string/],
      [[entry({ key: undefined })], /entry 1 \("ci"\): "key" must be a non-empty string/],
      [[entry({ key: 1234567890123456 })], /entry 1 \("ci"\): "key" must be a non-empty string/],
      [[entry({ key: ` ${SECRET}` })], /entry 1 \("ci"\): "key" may hold printable ASCII only/],
      [[entry({ key: `${SECRET}\n` })], /entry 1 \("ci"\): "key" may hold printable ASCII only/],
      [[entry({ key: `${SECRET}é` })], /entry 1 \("ci"\): "key" may hold printable ASCII only/],
      [[entry({ scopes: undefined })], /entry 1 \("ci"\): "scopes" must be a list/],
      [[entry({ scopes: 'a b' })], /entry 1 \("ci"\): "scopes" must be a list/],
      [[entry({ scopes: ['a b'] })], /entry 1 \("ci"\): every scope must be/],
      [[entry({ scopes: [''] })], /entry 1 \("ci"\): every scope must be/],
      [[entry({ scopes: [1] })], /entry 1 \("ci"\): every scope must be/],
      [[entry({ scopes: ['a', 'a'] })], /entry 1 \("ci"\): the scope "a" is listed twice/],
      [[entry({ name: '' })], /entry 1 \("ci"\): "name" must be/],
      [[entry({ name: 'line\nforged' })], /entry 1 \("ci"\): "name" must be/],
      [[entry({ name: 'x'.repeat(201) })], /entry 1 \("ci"\): "name" must be/],
      [[entry({ scope: ['a'] })], /entry 1 \("ci"\): unknown field "scope"/],
      [[entry({}), entry({ key: OTHER })], /entry 2 \("ci"\): the id is also the id of entry 1/],
      [[entry({}), entry({ id: 'bot' })], /entry 2 \("bot"\): its key is also the key of "ci"/],
    ];
    for (const [value, expected] of cases)
      assert.match(refusal(parse(value)), expected, JSON.stringify(value).slice(0, 80));
  });
});

describe('MCP_API_KEYS_FILE with MCP_AUTH=api_key', () => {
  // Parsed, so every auth setting has its default whatever is added later.
  const base: AuthSettings = z.object(authSettingsShape).parse({ MCP_AUTH: 'api_key' });
  const urls = { audience: 'http://127.0.0.1/mcp', resourceMetadataUrl: 'http://127.0.0.1/.well-known/x' };

  it('adds the file to MCP_API_KEYS: inline keys unscoped, file keys scoped', async () => {
    const p = await file(JSON.stringify([{ id: 'reader', key: OTHER, scopes: ['notes:read'] }]));
    const settings = { ...base, MCP_API_KEYS: [{ id: 'admin', key: SECRET }], MCP_API_KEYS_FILE: p };
    assert.deepEqual(configuredApiKeys(settings), [
      { id: 'admin', key: SECRET },
      { id: 'reader', key: OTHER, scopes: ['notes:read'] },
    ]);
    const auth = createAuthenticator(settings, urls);
    assert.ok(auth);
    const admin = await auth.authenticate({ headers: { 'x-api-key': SECRET } });
    const reader = await auth.authenticate({ headers: { 'x-api-key': OTHER } });
    assert.equal(auth.hasScopes(admin, ['notes:write']), true);
    assert.equal(auth.hasScopes(reader, ['notes:write']), false);
    assert.equal(auth.hasScopes(reader, ['notes:read']), true);
  });

  it('refuses an id or a key that MCP_API_KEYS already has, naming the entry', async () => {
    const p = await file(
      JSON.stringify([
        { id: 'x', key: OTHER, scopes: [] },
        { id: 'admin', key: 'k-0123456789abcdef', scopes: [] },
      ]),
    );
    const sameId = { ...base, MCP_API_KEYS: [{ id: 'admin', key: SECRET }], MCP_API_KEYS_FILE: p };
    assert.match(
      refusal(() => createAuthenticator(sameId, urls)),
      /entry 2 \("admin"\): the id is also in MCP_API_KEYS/,
    );
    const sameKey = { ...base, MCP_API_KEYS: [{ id: 'y', key: OTHER }], MCP_API_KEYS_FILE: p };
    assert.match(
      refusal(() => createAuthenticator(sameKey, urls)),
      /entry 1 \("x"\): its key is also the key of "y" in MCP_API_KEYS/,
    );
  });

  it('needs keys from one place or the other', async () => {
    assert.match(
      refusal(() => createAuthenticator(base, urls)),
      /needs MCP_API_KEYS .* or MCP_API_KEYS_FILE/,
    );
    const empty = await file('[]');
    assert.match(
      refusal(() => createAuthenticator({ ...base, MCP_API_KEYS_FILE: empty }, urls)),
      /holds none/,
    );
  });

  it('warns about short keys in the file and a file set without api_key, never showing a key', async () => {
    const p = await file(JSON.stringify([{ id: 'short', key: 'abc', scopes: [] }]));
    const warnings = authWarnings({ ...base, MCP_API_KEYS_FILE: p });
    assert.deepEqual(warnings, [
      'MCP_API_KEYS_FILE: the key of "short" is shorter than 16 characters; use a long random key (e.g. openssl rand -hex 32)',
    ]);
    assert.deepEqual(authWarnings({ ...base, MCP_AUTH: 'none', MCP_API_KEYS_FILE: p }), [
      'MCP_API_KEYS_FILE is set but MCP_AUTH=none: the file is not read',
    ]);
    // Not read without api_key: a missing file is no error then.
    assert.equal(
      createAuthenticator({ ...base, MCP_AUTH: 'none', MCP_API_KEYS_FILE: path.join(dir, 'gone') }, urls),
      undefined,
    );
  });
});
