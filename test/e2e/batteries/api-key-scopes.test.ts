/**
 * Scoped API keys (`MCP_API_KEYS_FILE`) on the real server, on both wires: a key with
 * `notes:read` lists and calls the tool that needs it; the tool that needs `notes:write` is
 * hidden from it (the default `MCP_SCOPE_VISIBILITY=hide`: absent from lists, a call answered
 * as for an unknown tool) or listed and refused with 403 `insufficient_scope` (`challenge`);
 * a key of `MCP_API_KEYS` beside the file opens everything; no key reaches the logs; and a
 * broken file stops the CLI with exit 2, naming the file and the entry.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../../src/base/errors.ts';
import {
  CLI,
  childEnv,
  REPO_ROOT,
  type SpawnedHttpServer,
  spawnHttpServer,
} from '../../helpers/spawn-server.ts';
import {
  connectSdk,
  ECHO_PLUGIN,
  type InProcessServer,
  logLines,
  openSession,
  post,
  request2026,
  rpcError,
  rpcResult,
  startServer,
  textOf,
  until,
  V2025,
} from './helpers.ts';

const NOTES_PLUGIN = './test/fixtures/scoped-notes-plugin.ts';
const READER_KEY = `reader-${randomBytes(16).toString('hex')}`;
const WRITER_KEY = `writer-${randomBytes(16).toString('hex')}`;
const ADMIN_KEY = `admin-${randomBytes(16).toString('hex')}`;
const KEYS_FILE = [
  { id: 'reader', key: READER_KEY, scopes: ['notes:read'] },
  { id: 'writer', key: WRITER_KEY, scopes: ['notes:read', 'notes:write'], name: 'Writer bot' },
];

let dir: string;
let keysFile: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-scoped-keys-'));
  keysFile = path.join(dir, 'keys.json');
  await writeFile(keysFile, JSON.stringify(KEYS_FILE, null, 2), { mode: 0o600 });
});
after(() => rm(dir, { recursive: true, force: true }));

type Wire = '2025' | '2026';

/** One request on either wire; on the 2025 wire in a session opened with the same key. */
async function rpc(
  url: string,
  wire: Wire,
  key: string,
  method: string,
  params: Record<string, unknown> = {},
) {
  const auth = { 'x-api-key': key };
  if (wire === '2026') {
    const r = request2026(5, method, params);
    return post(url, r.message, { ...r.headers, ...auth });
  }
  const session = await openSession(url, auth);
  return post(
    url,
    { jsonrpc: '2.0', id: 5, method, params },
    { ...auth, 'mcp-session-id': session, 'mcp-protocol-version': V2025 },
  );
}

async function toolNames(url: string, wire: Wire, key: string): Promise<string[]> {
  const reply = await rpc(url, wire, key, 'tools/list');
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return ((rpcResult(reply.body)?.tools as { name: string }[]) ?? []).map((t) => t.name);
}

describe('scoped API keys, MCP_SCOPE_VISIBILITY=hide (the default), on the CLI server', () => {
  let server: SpawnedHttpServer;
  before(async () => {
    server = await spawnHttpServer({
      MCP_AUTH: 'api_key',
      MCP_API_KEYS: `admin:${ADMIN_KEY}`,
      MCP_API_KEYS_FILE: keysFile,
      MCP_PLUGINS: `${ECHO_PLUGIN},${NOTES_PLUGIN}`,
      MCP_LOG_LEVEL: 'debug',
      MCP_LOG_FORMAT: 'json',
    });
  });
  after(() => server?.stop());

  for (const wire of ['2025', '2026'] as const) {
    test(`${wire} wire: a notes:read key lists and calls read_notes; write_notes answers as an unknown tool`, async () => {
      const seen = await toolNames(server.url, wire, READER_KEY);
      assert.ok(seen.includes('read_notes') && seen.includes('echo'), seen.join());
      assert.ok(!seen.includes('write_notes'), 'write_notes needs notes:write');

      const read = await rpc(server.url, wire, READER_KEY, 'tools/call', {
        name: 'read_notes',
        arguments: {},
      });
      assert.equal(textOf(rpcResult(read.body)), 'notes read by reader');

      const hidden = await rpc(server.url, wire, READER_KEY, 'tools/call', {
        name: 'write_notes',
        arguments: { text: 'n' },
      });
      const unknown = await rpc(server.url, wire, READER_KEY, 'tools/call', {
        name: 'no_such_tool',
        arguments: { text: 'n' },
      });
      assert.equal(hidden.status, unknown.status);
      assert.equal(rpcError(hidden.body)?.code, ErrorCode.InvalidParams);
      assert.equal(rpcError(hidden.body)?.message, 'Unknown tool: write_notes');
      assert.equal(rpcError(unknown.body)?.message, 'Unknown tool: no_such_tool');

      // A resource behind notes:write is hidden the same way.
      const resources = await rpc(server.url, wire, READER_KEY, 'resources/list');
      const uris = ((rpcResult(resources.body)?.resources as { uri: string }[]) ?? []).map((r) => r.uri);
      assert.ok(!uris.includes('notes://drafts'), uris.join());
    });

    test(`${wire} wire: a notes:write key sees and calls both, named by its client name`, async () => {
      const seen = await toolNames(server.url, wire, WRITER_KEY);
      assert.ok(seen.includes('read_notes') && seen.includes('write_notes'), seen.join());
      const wrote = await rpc(server.url, wire, WRITER_KEY, 'tools/call', {
        name: 'write_notes',
        arguments: { text: 'n' },
      });
      assert.equal(textOf(rpcResult(wrote.body)), '"n" written by writer (Writer bot)');
    });
  }

  test('a key of MCP_API_KEYS beside the file holds no scopes and opens every tool', async () => {
    const client = await connectSdk(server.url, { authorization: `Bearer ${ADMIN_KEY}` });
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('write_notes') && names.includes('read_notes'));
      const wrote = await client.callTool({ name: 'write_notes', arguments: { text: 'a' } });
      assert.equal(textOf(wrote), '"a" written by admin');
    } finally {
      await client.close();
    }
  });

  test('the official SDK client with a notes:read key sees the tools that key opens', async () => {
    const client = await connectSdk(server.url, { 'x-api-key': READER_KEY });
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('read_notes') && !names.includes('write_notes'), names.join());
      assert.equal(
        textOf(await client.callTool({ name: 'read_notes', arguments: {} })),
        'notes read by reader',
      );
    } finally {
      await client.close();
    }
  });

  test('the logs name the key ids and never hold a key', async () => {
    await until(
      () => logLines(server.stderr()).some((l) => l.clientId === 'writer' && l.tool === 'write_notes'),
      10_000,
      "writer's request line",
    );
    const stderr = server.stderr();
    for (const secret of [READER_KEY, WRITER_KEY, ADMIN_KEY]) {
      assert.ok(!stderr.includes(secret.slice(-20)), 'a key appears in the logs');
    }
  });
});

describe('scoped API keys, MCP_SCOPE_VISIBILITY=challenge', () => {
  let server: InProcessServer;
  before(async () => {
    server = await startServer({
      MCP_AUTH: 'api_key',
      MCP_API_KEYS_FILE: keysFile,
      MCP_PLUGINS: `${ECHO_PLUGIN},${NOTES_PLUGIN}`,
      MCP_SCOPE_VISIBILITY: 'challenge',
    });
  });
  after(() => server?.stop());

  for (const wire of ['2025', '2026'] as const) {
    test(`${wire} wire: write_notes is listed, and a notes:read key gets 403 insufficient_scope`, async () => {
      assert.ok((await toolNames(server.url, wire, READER_KEY)).includes('write_notes'));
      const refused = await rpc(server.url, wire, READER_KEY, 'tools/call', {
        name: 'write_notes',
        arguments: { text: 'n' },
      });
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(
        refused.headers.get('www-authenticate'),
        'Bearer error="insufficient_scope", scope="notes:write"',
      );
      assert.equal(rpcError(refused.body)?.code, ErrorCode.Forbidden);
      assert.equal(
        (refused.body as { id?: unknown }).id,
        5,
        'a scope refusal in the call path echoes the id',
      );
      assert.deepEqual((rpcError(refused.body)?.data as { requiredScopes?: string[] })?.requiredScopes, [
        'notes:write',
      ]);

      const allowed = await rpc(server.url, wire, WRITER_KEY, 'tools/call', {
        name: 'write_notes',
        arguments: { text: 'n' },
      });
      assert.equal(allowed.status, 200);
      assert.equal(textOf(rpcResult(allowed.body)), '"n" written by writer (Writer bot)');
    });
  }
});

describe('a broken MCP_API_KEYS_FILE stops the CLI', () => {
  const start = (file: string) =>
    spawnSync(process.execPath, [CLI, 'run', '--transport', 'http', '--port', '0'], {
      cwd: REPO_ROOT,
      env: childEnv({
        MCP_AUTH: 'api_key',
        MCP_API_KEYS_FILE: file,
        MCP_PLUGINS: ECHO_PLUGIN,
        MCP_LOG_FORMAT: 'pretty',
      }),
      encoding: 'utf8',
      timeout: 60_000,
    });

  test('exit 2, naming the file and the entry, and no key', async () => {
    const broken = path.join(dir, 'broken.json');
    await writeFile(broken, JSON.stringify([...KEYS_FILE, { id: 'copy', key: READER_KEY, scopes: [] }]));
    const r = start(broken);
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `cannot start:\\nMCP_API_KEYS_FILE ${broken}: entry 3 \\("copy"\\): its key is also the key of "reader"`,
      ),
    );
    assert.ok(!r.stderr.includes(READER_KEY.slice(-20)), 'a key appears in the output');
  });

  test('exit 2 for a file that is missing', () => {
    const missing = path.join(dir, 'missing.json');
    const r = start(missing);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`MCP_API_KEYS_FILE ${missing}: no such file`));
  });
});
