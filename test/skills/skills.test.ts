/**
 * The skills extension (SEP-2640) served from a folder (MCP_SKILLS_DIR): entries with verbatim
 * front matter and complete manifests (digests and sizes checked against the bytes), paging,
 * `skills/get`, directory reads, the `skill://` resources, the limits, and the symlink rule:
 * a link leading out of the folder is refused, at start-up and at read time.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { buildMcpServer, type McpServer } from '../../src/assembly/server.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { ErrorCode, InternalCode, type JsonObject } from '../../src/index.ts';
import type { TestClientError } from '../../src/testing/client/test-client.ts';
import { type CheckedClient, handleOf, startClient } from '../helpers/client.ts';

const SKILLS = 'io.modelcontextprotocol/skills';
const code = (expected: number) => (e: TestClientError) => e.code === expected;
const sha256 = (bytes: Buffer | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

let dir: string;
let outside: string;
let root: string;

/** Writes `files` (path → content) under the skills root. */
async function put(files: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
}

const skillMd = (name: string, description: string, extra = '') =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n# ${name}\n`;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-skills-'));
  root = path.join(dir, 'skills');
  outside = path.join(dir, 'outside');
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'not for clients');
  await mkdir(path.join(outside, 'folder'));
  await writeFile(path.join(outside, 'folder', 'x.md'), 'outside');
  await put({
    'pdf-forms/SKILL.md': skillMd(
      'pdf-forms',
      'Fill PDF forms',
      'license: MIT\nmetadata:\n  version: "1.2"\n  tags: [pdf, forms]\n',
    ),
    'pdf-forms/references/FORMS.md': '# Fields\n',
    'pdf-forms/assets/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]),
    'pdf-forms/.hidden': 'skipped',
    'team/git-workflow/SKILL.md': skillMd('git-workflow', 'Team Git conventions'),
    'wrong-name/SKILL.md': skillMd('other-name', 'The folder name differs'),
    'no-frontmatter/SKILL.md': '# just markdown\n',
    'Bad_Name/SKILL.md': skillMd('Bad_Name', 'Breaks the naming rules'),
    'SKILL.md': skillMd('root', 'A SKILL.md at the root is not a skill'),
    'linked/SKILL.md': skillMd('linked', 'Has links inside and out'),
    'linked/inside.md': 'inside',
  });
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'linked/secret.txt'));
  await symlink(path.join(outside, 'folder'), path.join(root, 'linked/out'));
  await symlink(path.join(root, 'linked/inside.md'), path.join(root, 'linked/alias.md'));
  // 513 files: over the 512 a skill may have.
  const many: Record<string, string> = { 'too-many/SKILL.md': skillMd('too-many', 'Too many files') };
  for (let i = 0; i < 512; i++) many[`too-many/f/${i}.txt`] = String(i);
  await put(many);
  await put({ 'too-big/SKILL.md': skillMd('too-big', 'Too many bytes'), 'too-big/blob.bin': '' });
  await truncate(path.join(root, 'too-big/blob.bin'), 16 * 1024 * 1024);
});
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function serve(env: Record<string, string> = {}): Promise<McpServer> {
  return buildMcpServer({
    settings: parseSettings({ MCP_LOG_LEVEL: 'silent', MCP_SKILLS_DIR: root, ...env }),
    logger: pino({ level: 'silent' }),
    plugins: [],
  });
}

async function client2026(server: McpServer): Promise<CheckedClient> {
  return startClient({ server: handleOf(server), wire: '2026' });
}

describe('skills from a folder', () => {
  let server: McpServer;
  before(async () => {
    server = await serve();
  });
  after(async () => {
    await server.close();
  });

  test('server/discover declares the extension with directoryRead, and the resources capability', async () => {
    const client = await client2026(server);
    const capabilities = (await client.request('server/discover')).capabilities as JsonObject;
    assert.deepEqual((capabilities.extensions as JsonObject)[SKILLS], { directoryRead: true });
    assert.ok(capabilities.resources);
    await client.close();
  });

  test('skills/list serves only valid skills, each a complete manifest with true digests and sizes', async () => {
    const client = await client2026(server);
    const result = await client.request('skills/list');
    assert.equal(result.ttlMs, 0);
    assert.equal(result.cacheScope, 'private');
    const skills = result.skills as JsonObject[];
    assert.deepEqual(
      skills.map((s) => s.uri),
      ['skill://linked/SKILL.md', 'skill://pdf-forms/SKILL.md', 'skill://team/git-workflow/SKILL.md'],
    );
    const pdf = skills[1] as JsonObject;
    assert.deepEqual(pdf.frontmatter, {
      name: 'pdf-forms',
      description: 'Fill PDF forms',
      license: 'MIT',
      metadata: { version: '1.2', tags: ['pdf', 'forms'] },
    });
    const resources = pdf.resources as { uri: string; digest: string; size: number }[];
    assert.deepEqual(resources.map((r) => r.uri).sort(), [
      'skill://pdf-forms/SKILL.md',
      'skill://pdf-forms/assets/logo.png',
      'skill://pdf-forms/references/FORMS.md',
    ]);
    for (const r of resources) {
      const bytes = await readFile(path.join(root, r.uri.slice('skill://'.length)));
      assert.equal(r.size, bytes.length, r.uri);
      assert.equal(r.digest, sha256(bytes), r.uri);
    }
    // The link that leads out is left out; the one that stays inside is served.
    const linked = (skills[0] as JsonObject).resources as { uri: string }[];
    assert.deepEqual(linked.map((r) => r.uri).sort(), [
      'skill://linked/SKILL.md',
      'skill://linked/alias.md',
      'skill://linked/inside.md',
    ]);
    await client.close();
  });

  test('skills/list pages one entry at a time with MCP_PAGE_SIZE=1, never splitting an entry', async () => {
    const small = await serve({ MCP_PAGE_SIZE: '1' });
    const client = await client2026(small);
    const seen: string[] = [];
    let cursor: unknown;
    do {
      const page = await client.request('skills/list', cursor === undefined ? {} : { cursor });
      const skills = page.skills as JsonObject[];
      assert.equal(skills.length, 1);
      assert.ok(Array.isArray(skills[0]?.resources));
      seen.push(String(skills[0]?.uri));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    assert.equal(seen.length, 3);
    await assert.rejects(client.request('skills/list', { cursor: 'bogus' }), code(ErrorCode.InvalidParams));
    await client.close();
    await small.close();
  });

  test('skills/get returns the list entry with cache attributes and no cursor; -32602 for an unknown URI', async () => {
    const client = await client2026(server);
    const listed = (await client.request('skills/list')).skills as JsonObject[];
    const got = await client.request('skills/get', { uri: 'skill://team/git-workflow/SKILL.md' });
    assert.deepEqual(got.skill, listed[2]);
    assert.equal(got.nextCursor, undefined);
    assert.equal(got.ttlMs, 0);
    for (const uri of [
      'skill://nope/SKILL.md',
      'skill://wrong-name/SKILL.md',
      'skill://pdf-forms/references/FORMS.md',
    ]) {
      await assert.rejects(client.request('skills/get', { uri }), code(ErrorCode.InvalidParams));
    }
    await assert.rejects(client.request('skills/get', {}), code(ErrorCode.InvalidParams));
    await client.close();
  });

  test('resources: each SKILL.md is listed from its front matter; files read as text or blob', async () => {
    const client = await client2026(server);
    const listed = (await client.request('resources/list')).resources as JsonObject[];
    assert.deepEqual(
      listed.find((r) => r.uri === 'skill://pdf-forms/SKILL.md'),
      {
        uri: 'skill://pdf-forms/SKILL.md',
        name: 'pdf-forms',
        description: 'Fill PDF forms',
        mimeType: 'text/markdown',
        size: Buffer.byteLength(
          skillMd(
            'pdf-forms',
            'Fill PDF forms',
            'license: MIT\nmetadata:\n  version: "1.2"\n  tags: [pdf, forms]\n',
          ),
        ),
      },
    );
    const text = (await client.readResource('skill://pdf-forms/references/FORMS.md'))
      .contents as JsonObject[];
    assert.deepEqual(text, [
      { uri: 'skill://pdf-forms/references/FORMS.md', mimeType: 'text/markdown', text: '# Fields\n' },
    ]);
    const blob = (await client.readResource('skill://pdf-forms/assets/logo.png')).contents as JsonObject[];
    assert.equal(blob[0]?.mimeType, 'image/png');
    assert.deepEqual(
      Buffer.from(String(blob[0]?.blob), 'base64'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]),
    );
    for (const uri of [
      'skill://linked/secret.txt',
      'skill://linked/out/x.md',
      'skill://pdf-forms/.hidden',
      'skill://too-many/SKILL.md',
    ]) {
      await assert.rejects(client.readResource(uri), code(ErrorCode.InvalidParams), uri);
    }
    await client.close();
  });

  test('resources/directory/read lists direct children, folders as inode/directory; -32602 otherwise', async () => {
    const client = await client2026(server);
    const skillRoot = await client.request('resources/directory/read', { uri: 'skill://pdf-forms' });
    assert.deepEqual(
      (skillRoot.resources as JsonObject[]).map((r) => [r.uri, r.mimeType]),
      [
        ['skill://pdf-forms/SKILL.md', 'text/markdown'],
        ['skill://pdf-forms/assets', 'inode/directory'],
        ['skill://pdf-forms/references', 'inode/directory'],
      ],
    );
    const prefix = await client.request('resources/directory/read', { uri: 'skill://team' });
    assert.deepEqual(
      (prefix.resources as JsonObject[]).map((r) => r.uri),
      ['skill://team/git-workflow'],
    );
    for (const uri of ['skill://pdf-forms/SKILL.md', 'skill://nowhere', 'skill://linked/out']) {
      await assert.rejects(
        client.request('resources/directory/read', { uri }),
        code(ErrorCode.InvalidParams),
        uri,
      );
    }
    await client.close();
  });

  test('a file swapped for a link leading out after start-up is refused at read time', async () => {
    const swapped = await serve();
    const client = await client2026(swapped);
    const uri = 'skill://linked/inside.md';
    assert.equal(((await client.readResource(uri)).contents as JsonObject[])[0]?.text, 'inside');
    const file = path.join(root, 'linked/inside.md');
    await rm(file);
    await symlink(path.join(outside, 'secret.txt'), file);
    try {
      await assert.rejects(client.readResource(uri), code(ErrorCode.InvalidParams));
      assert.doesNotMatch(JSON.stringify(client.log), /not for clients/);
    } finally {
      await rm(file);
      await writeFile(file, 'inside');
    }
    await client.close();
    await swapped.close();
  });

  test('a file changed since start-up is refused rather than served under a stale digest', async () => {
    const changed = await serve();
    const client = await client2026(changed);
    const file = path.join(root, 'pdf-forms/references/FORMS.md');
    await writeFile(file, '# Fields, edited\n');
    try {
      await assert.rejects(
        client.readResource('skill://pdf-forms/references/FORMS.md'),
        code(ErrorCode.InternalError),
      );
    } finally {
      await writeFile(file, '# Fields\n');
    }
    await client.close();
    await changed.close();
  });
});

describe('skills: setting', () => {
  test('without MCP_SKILLS_DIR the skills methods are -32601 and nothing is declared', async () => {
    const server = await buildMcpServer({
      settings: parseSettings({ MCP_LOG_LEVEL: 'silent' }),
      logger: pino({ level: 'silent' }),
      plugins: [],
    });
    const client = await client2026(server);
    const capabilities = (await client.request('server/discover')).capabilities as JsonObject;
    assert.equal((capabilities.extensions as JsonObject | undefined)?.[SKILLS], undefined);
    for (const method of ['skills/list', 'skills/get', 'resources/directory/read']) {
      await assert.rejects(client.request(method, { uri: 'skill://x' }), code(ErrorCode.MethodNotFound));
    }
    await client.close();
    await server.close();
  });

  test('an MCP_SKILLS_DIR that is not a folder stops start-up with a message naming it', async () => {
    await assert.rejects(
      serve({ MCP_SKILLS_DIR: path.join(dir, 'missing') }),
      (e: Error & { code?: string }) =>
        e.code === InternalCode.InvalidSetting && /MCP_SKILLS_DIR/.test(e.message),
    );
  });
});
