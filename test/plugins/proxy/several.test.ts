/**
 * Several upstreams in one server (MCP_PROXY_UPSTREAMS), in-process: the official memory and
 * everything servers and a local plugin side by side, each upstream's tools, prompts and
 * resources under its own prefix and URI label, and the everything server's tools transformed
 * (renamed, re-described, an argument hidden with a fixed value: a caller who sends it gets
 * -32602). A prefixed upstream tool whose name a local tool already has leaves the local one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestClient, TestClientError } from '@mcp-toolkit/server/testing';
import proxy, { proxyPluginWith } from '../../../plugins/proxy/index.ts';
import local from './fixtures/local-plugin.ts';
import { everythingEntry, memoryEntry, relayEntry, scratch } from './helpers.ts';

const text = (r: Record<string, unknown>) => ((r.content as { text?: string }[])[0]?.text ?? '') as string;

describe('memory, everything and a local plugin in one server', () => {
  const tmp = scratch();
  let client: TestClient;
  before(async () => {
    const upstreams = [
      memoryEntry(tmp.dir, { include: ['read_graph', 'create_entities', 'search_nodes'] }),
      everythingEntry({
        tools: {
          echo: { rename: 'say', description: 'Says the message back.' },
          'get-sum': { hide: { b: 10 } },
          'no-such-tool': { rename: 'ghost' },
        },
      }),
    ];
    client = await TestClient.start({
      plugins: [proxy, local],
      env: { MCP_PROXY_UPSTREAMS: JSON.stringify(upstreams) },
    });
  });
  after(async () => {
    await client?.close();
    tmp.remove();
  });

  test('each upstream’s tools under its prefix, beside the local ones', async () => {
    const names = (await client.listTools()).map((t) => t.name as string);
    for (const n of ['hello', 'mem_read_graph', 'mem_create_entities', 'ev_say', 'ev_get-sum'])
      assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
    assert.ok(!names.includes('mem_delete_entities'), 'the include list of memory holds');
    assert.ok(!names.includes('ev_echo'), 'renamed');
    assert.ok(!names.includes('ev_ghost'), 'a transform of a tool that does not exist makes nothing');
    assert.equal(names.filter((n) => n === 'mem_read_graph').length, 1);
  });

  test('a tool of each is called', async () => {
    assert.equal(await client.callText('hello', { who: 'Ada' }), 'Hello, Ada!');
    const made = await client.callTool('mem_create_entities', {
      entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
    });
    assert.notEqual(made.isError, true, JSON.stringify(made));
    const found = await client.callTool('mem_search_nodes', { query: 'Ada' });
    assert.match(text(found), /Ada/);
    assert.match(text(await client.callTool('ev_say', { message: 'hi there' })), /hi there/);
  });

  test('a prefixed upstream name a local tool has: the local tool stays', async () => {
    assert.equal(await client.callText('mem_read_graph', {}), 'the local mem_read_graph');
  });

  test('re-described, and a hidden argument fixed: out of the schema, sent with its value', async () => {
    const tools = await client.listTools();
    const say = tools.find((t) => t.name === 'ev_say');
    assert.equal(say?.description, 'Says the message back.');
    const sum = tools.find((t) => t.name === 'ev_get-sum') as { inputSchema: Record<string, unknown> };
    const schema = sum.inputSchema as { properties: Record<string, unknown>; required?: string[] };
    assert.deepEqual(Object.keys(schema.properties), ['a']);
    assert.ok(!(schema.required ?? []).includes('b'));
    assert.match(text(await client.callTool('ev_get-sum', { a: 5 })), /15/);
  });

  test('a caller sending a hidden argument gets -32602, and the server goes on', async () => {
    await assert.rejects(
      client.request('tools/call', { name: 'ev_get-sum', arguments: { a: 5, b: 1 } }),
      (err: unknown) => err instanceof TestClientError && err.code === -32602 && /"b"/.test(err.message),
    );
    assert.match(text(await client.callTool('ev_get-sum', { a: 1 })), /11/);
  });

  test('prompts under the prefix, resources under the upstream’s label', async () => {
    const prompts = (await client.request('prompts/list')).prompts as { name: string }[];
    assert.ok(
      prompts.some((p) => p.name === 'ev_simple-prompt'),
      JSON.stringify(prompts.map((p) => p.name)),
    );
    const resources = (await client.request('resources/list')).resources as { uri: string }[];
    for (const r of resources) assert.match(r.uri, /^(memory|everything)\+/);
    assert.ok(resources.some((r) => r.uri === 'memory+memory://knowledge-graph'));
    const first = resources.find((r) => r.uri.startsWith('everything+')) as { uri: string };
    const read = await client.readResource(first.uri);
    const contents = read.contents as { uri: string }[];
    assert.equal(contents[0]?.uri, first.uri, 'contents name the URI as served');
    const templates = (await client.request('resources/templates/list')).resourceTemplates as {
      uriTemplate: string;
    }[];
    for (const t of templates) assert.match(t.uriTemplate, /^everything\+/);
  });

  test('a URI without its label is unknown', async () => {
    const resources = (await client.request('resources/list')).resources as { uri: string }[];
    const bare = (resources.find((r) => r.uri.startsWith('everything+')) as { uri: string }).uri.replace(
      /^everything\+/,
      '',
    );
    const r = await client.readResource(bare).catch((err: unknown) => err);
    assert.ok(r instanceof TestClientError, JSON.stringify(r));
  });
});

describe('proxyPluginWith: the upstreams given in code', () => {
  let client: TestClient;
  before(async () => {
    const plugin = proxyPluginWith({
      upstreams: [
        relayEntry('one', 'from one', { tools: { add: { hide: { b: 100 } } } }) as never,
        relayEntry('two', 'from two') as never,
      ],
    });
    client = await TestClient.start({ plugins: [plugin, local] });
  });
  after(() => client?.close());

  test('both upstreams and the local plugin served, the transform applied', async () => {
    const names = (await client.listTools()).map((t) => t.name as string);
    for (const n of ['hello', 'one_add', 'two_add'])
      assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
    assert.equal(await client.callText('one_add', { a: 1 }), '101');
    assert.equal(await client.callText('two_add', { a: 1, b: 2 }), '3');
    const contents = (await client.readResource('two+note://a')).contents as { text: string }[];
    assert.equal(contents[0]?.text, 'from two');
  });

  test('a bad entry is an error when the plugin is made; an upstream in the environment as well, at start-up', async () => {
    assert.throws(
      () =>
        proxyPluginWith({
          upstreams: [
            { name: 'a', command: 'x' },
            { name: 'b', command: 'y' },
          ],
        }),
      /upstreams\[1\] \("b"\)\.prefix: required/,
    );
    assert.throws(
      () => proxyPluginWith({ upstreams: [{ name: 'a', command: 'x' }], secrets: { b: { apiKey: 'k' } } }),
      /names "b", which no upstream/,
    );
    await assert.rejects(
      TestClient.start({
        plugins: [proxyPluginWith({ upstreams: [{ name: 'a', command: 'x' }] })],
        env: { MCP_PROXY_COMMAND: 'node' },
      }),
      /upstreams in code \(proxyPluginWith\): leave MCP_PROXY_COMMAND/,
    );
  });
});
