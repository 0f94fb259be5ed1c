/**
 * The filesystem plugin end to end through the in-process TestClient (real JSON-RPC, real
 * handshake on the 2025 wire, the stateless envelope on the 2026 wire).
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { filesystemPlugin } from '../../../plugins/filesystem/index.ts';
import { ErrorCode, InternalCode, type JsonObject, type PluginDefinition } from '../../../src/index.ts';
import { TestClient } from '../../../src/testing/client/test-client.ts';
import { makeTree, rejection, type Tree } from './helpers.ts';

interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

async function start(env: Record<string, string>, wire: '2025' | '2026' = '2025'): Promise<TestClient> {
  return TestClient.start({ plugins: [filesystemPlugin as PluginDefinition<never>], env, wire });
}

async function callTool(client: TestClient, name: string, args: JsonObject): Promise<ToolResult> {
  return (await client.callTool(name, args)) as unknown as ToolResult;
}

const text = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('');

for (const wire of ['2025', '2026'] as const) {
  describe(`filesystem plugin over MCP, read-only, ${wire} wire`, () => {
    let tree: Tree;
    let client: TestClient;
    before(async () => {
      tree = await makeTree('mcp-fs-client-ro-');
      client = await start({ MCP_FILESYSTEM_ROOT: tree.root, MCP_FILESYSTEM_READ_ONLY: 'true' }, wire);
    });
    after(async () => {
      await client?.close();
      await tree?.cleanup();
    });

    test('lists list_files and read_file only, each with an output schema', async () => {
      const listing = (await client.request('tools/list', {})) as {
        tools: { name: string; outputSchema?: unknown; annotations?: { readOnlyHint?: boolean } }[];
      };
      assert.deepEqual(listing.tools.map((t) => t.name).sort(), ['list_files', 'read_file']);
      for (const t of listing.tools) {
        assert.ok(t.outputSchema, `${t.name} has an output schema`);
        assert.equal(t.annotations?.readOnlyHint, true);
      }
    });

    test('read_file returns structured content', async () => {
      const result = await callTool(client, 'read_file', { path: 'a.txt' });
      assert.notEqual(result.isError, true);
      assert.deepEqual(result.structuredContent, { path: 'a.txt', content: 'alpha', size: 5 });
    });

    test('list_files returns entries sorted by name', async () => {
      const result = await callTool(client, 'list_files', {});
      const entries = (result.structuredContent?.entries ?? []) as { name: string }[];
      const names = entries.map((e) => e.name);
      assert.deepEqual(names, [...names].sort());
      assert.ok(names.includes('sub'));
    });

    test('escapes are isError results that name no host path', async () => {
      for (const path of [
        '../outside/secret.txt',
        'link-out-file',
        'link-out-dir/secret.txt',
        '/etc/passwd',
      ]) {
        const result = await callTool(client, 'read_file', { path });
        assert.equal(result.isError, true, path);
        assert.match(text(result), /^ToolkitError: /);
        assert.ok(!text(result).includes(tree.base), text(result));
        assert.ok(!text(result).includes('top secret'));
      }
      const missing = await callTool(client, 'read_file', { path: 'nope.txt' });
      assert.equal(missing.isError, true);
      assert.match(text(missing), /^FileAccessError: /);
    });

    test('write_file is an unknown tool in read-only mode', async () => {
      const err = await rejection(
        client.request('tools/call', { name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }),
      );
      assert.equal(err.code, ErrorCode.InvalidParams);
    });

    test('the file template reads, refuses escapes, and completes paths', async () => {
      const templates = (await client.request('resources/templates/list', {})) as {
        resourceTemplates: { uriTemplate: string; name: string }[];
      };
      assert.ok(
        templates.resourceTemplates.some((t) => t.uriTemplate === 'file:///{+path}' && t.name === 'file'),
      );
      const read = (await client.request('resources/read', { uri: 'file:///sub/b.txt' })) as {
        contents: { uri: string; text: string; mimeType: string }[];
      };
      assert.deepEqual(read.contents, [{ uri: 'file:///sub/b.txt', mimeType: 'text/plain', text: 'bravo' }]);
      const err = await rejection(client.request('resources/read', { uri: 'file:///link-out-file' }));
      assert.equal(err.code, ErrorCode.InvalidParams);
      assert.ok(!err.message.includes(tree.base));
      const completion = (await client.request('completion/complete', {
        ref: { type: 'ref/resource', uri: 'file:///{+path}' },
        argument: { name: 'path', value: 'su' },
      })) as { completion: { values: string[] } };
      assert.deepEqual(completion.completion.values, ['sub/']);
    });

    test('summarise_file embeds the file as a resource', async () => {
      const prompt = (await client.request('prompts/get', {
        name: 'summarise_file',
        arguments: { path: 'a.txt' },
      })) as {
        messages: { role: string; content: { type: string; resource?: { uri: string; text: string } } }[];
      };
      assert.equal(prompt.messages[0]?.content.type, 'resource');
      assert.equal(prompt.messages[0]?.content.resource?.uri, 'file:///a.txt');
      assert.equal(prompt.messages[0]?.content.resource?.text, 'alpha');
      assert.equal(prompt.messages[1]?.content.type, 'text');
    });
  });
}

describe('filesystem plugin over MCP, read-write', () => {
  let tree: Tree;
  let client: TestClient;
  before(async () => {
    tree = await makeTree('mcp-fs-client-rw-');
    client = await start({ MCP_FILESYSTEM_ROOT: tree.root });
  });
  after(async () => {
    await client?.close();
    await tree?.cleanup();
  });

  test('write_file then read_file round-trips', async () => {
    const written = await callTool(client, 'write_file', { path: 'notes/new.md', content: '# hi' });
    assert.deepEqual(written.structuredContent, { path: 'notes/new.md', bytes: 4 });
    assert.equal(
      (await callTool(client, 'read_file', { path: 'notes/new.md' })).structuredContent?.content,
      '# hi',
    );
  });

  test('writes through links out of the root are refused and change nothing outside', async () => {
    for (const path of ['link-out-file', 'link-out-dir/new.txt', '../outside/new.txt']) {
      const result = await callTool(client, 'write_file', { path, content: 'pwned' });
      assert.equal(result.isError, true, path);
      assert.ok(!text(result).includes(tree.base), text(result));
    }
    assert.deepEqual(await readdir(tree.outside), ['secret.txt']);
  });
});

describe('loading by name', () => {
  let tree: Tree;
  before(async () => {
    tree = await makeTree('mcp-fs-client-load-');
  });
  after(() => tree.cleanup());

  test('MCP_PLUGINS-style "filesystem" loads the default export with its settings', async () => {
    const client = await TestClient.start({
      plugins: ['filesystem'],
      env: { MCP_FILESYSTEM_ROOT: tree.root },
    });
    try {
      const listing = (await client.request('tools/list', {})) as { tools: { name: string }[] };
      assert.deepEqual(listing.tools.map((t) => t.name).sort(), ['list_files', 'read_file', 'write_file']);
    } finally {
      await client.close();
    }
  });

  test('a bad MCP_FILESYSTEM_READ_ONLY stops start-up with InvalidSetting', async () => {
    const err = await rejection(
      TestClient.start({
        plugins: ['filesystem'],
        env: { MCP_FILESYSTEM_ROOT: tree.root, MCP_FILESYSTEM_READ_ONLY: 'maybe' },
      }),
    );
    assert.equal(err.code, InternalCode.InvalidSetting);
    assert.match(err.message, /MCP_FILESYSTEM_READ_ONLY/);
  });
});
