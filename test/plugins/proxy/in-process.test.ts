/**
 * The proxy plugin in-process (TestClient), against real upstreams over stdio: the memory
 * server's tools listed and called as ours, with the prefix, the include filter and per-tool
 * scopes (a tool the caller's identity lacks the scope for is absent); the everything
 * server's resources, templates, prompts and completions; progress forwarded; doctor.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestClient } from '@mcp-toolkit/server/testing';
import proxy from '../../../plugins/proxy/index.ts';
import { everythingUpstream, memoryUpstream, scratch } from './helpers.ts';

const text = (r: Record<string, unknown>) => ((r.content as { text?: string }[])[0]?.text ?? '') as string;

describe('memory server through the proxy', () => {
  const tmp = scratch();
  let client: TestClient;
  before(async () => {
    client = await TestClient.start({ plugins: [proxy], env: memoryUpstream(tmp.dir) });
  });
  after(async () => {
    await client?.close();
    tmp.remove();
  });

  test('its tools are ours: listed with their schemas, called with structured results', async () => {
    const tools = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['create_entities', 'read_graph', 'search_nodes', 'delete_entities'])
      assert.ok(names.includes(n), n);
    const create = tools.find((t) => t.name === 'create_entities');
    assert.ok((create?.outputSchema as object | undefined) !== undefined);
    assert.equal('execution' in (create ?? {}), false);
    const made = await client.callTool('create_entities', {
      entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
    });
    assert.notEqual(made.isError, true, JSON.stringify(made));
    const graph = await client.callTool('read_graph', {});
    assert.equal((graph.structuredContent as { entities: { name: string }[] }).entities[0]?.name, 'Ada');
  });

  test('arguments are checked against the upstream schema before the call', async () => {
    const bad = await client.callTool('create_entities', { entities: 'nope' });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /Invalid arguments for tool create_entities/);
  });
});

describe('prefix, include and scopes', () => {
  const tmp = scratch();
  const env = {
    ...memoryUpstream(tmp.dir),
    MCP_PROXY_PREFIX: 'mem_',
    MCP_PROXY_INCLUDE: 'read_graph,create_*,delete_entities',
    MCP_PROXY_EXCLUDE: 'create_relations',
    MCP_PROXY_SCOPES: '{"delete_entities":["admin"]}',
  };
  const identity = (scopes: string[]) => ({ clientId: 'someone', scopes });
  let guest: TestClient;
  let admin: TestClient;
  before(async () => {
    guest = await TestClient.start({ plugins: [proxy], env, identity: identity([]) });
    admin = await TestClient.start({ plugins: [proxy], env, identity: identity(['admin']) });
  });
  after(async () => {
    await guest?.close();
    await admin?.close();
    tmp.remove();
  });

  test('renamed and filtered', async () => {
    const names = (await admin.listTools()).map((t) => t.name).sort();
    assert.deepEqual(names, ['mem_create_entities', 'mem_delete_entities', 'mem_read_graph']);
    const graph = await admin.callTool('mem_read_graph', {});
    assert.notEqual(graph.isError, true, JSON.stringify(graph));
  });

  test('a scoped tool is absent for a caller without the scope, and works for one with it', async () => {
    const names = (await guest.listTools()).map((t) => t.name).sort();
    assert.deepEqual(names, ['mem_create_entities', 'mem_read_graph']);
    await assert.rejects(guest.callTool('mem_delete_entities', { entityNames: ['x'] }), /Unknown tool/);
    const deleted = await admin.callTool('mem_delete_entities', { entityNames: ['x'] });
    assert.notEqual(deleted.isError, true, JSON.stringify(deleted));
  });
});

describe('everything server through the proxy', () => {
  let client: TestClient;
  before(async () => {
    // The everything server asks for roots soon after it starts: the call in flight then is asked.
    client = await TestClient.start({
      plugins: [proxy],
      env: everythingUpstream(),
      onRoots: () => ({ roots: [] }),
    });
  });
  after(() => client?.close());

  test('echo and get-sum', async () => {
    assert.match(await client.callText('echo', { message: 'hi there' }), /hi there/);
    assert.match(await client.callText('get-sum', { a: 2, b: 3 }), /5/);
  });

  test('progress from the upstream call is forwarded', async () => {
    const result = await client.request('tools/call', {
      name: 'trigger-long-running-operation',
      arguments: { duration: 0.3, steps: 3 },
      _meta: { progressToken: 'p1' },
    });
    assert.match(text(result), /completed/);
    const progress = client.notifications
      .filter((n) => n.method === 'notifications/progress')
      .map((n) => n.params as { progressToken: string; progress: number; total?: number });
    // The upstream's last progress is not always reported by the official client (see http.test.ts).
    const forwarded = progress.filter((p) => p.progressToken === 'p1').map((p) => [p.progress, p.total]);
    assert.deepEqual(forwarded.slice(0, 2), [
      [1, 3],
      [2, 3],
    ]);
  });

  test('resources, templates, prompts and completion', async () => {
    const resources = (await client.request('resources/list', {})).resources as { uri: string }[];
    assert.ok(resources.length > 0);
    const first = resources[0]?.uri as string;
    const read = await client.readResource(first);
    assert.equal((read.contents as { uri: string }[])[0]?.uri, first);
    const templates = (await client.request('resources/templates/list', {})).resourceTemplates as {
      uriTemplate: string;
    }[];
    assert.ok(templates.length > 0);
    const prompts = (await client.request('prompts/list', {})).prompts as { name: string }[];
    assert.ok(
      prompts.some((p) => p.name === 'simple-prompt'),
      JSON.stringify(prompts),
    );
    const prompt = await client.getPrompt('simple-prompt');
    assert.ok((prompt.messages as unknown[]).length > 0);
    const completion = await client.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'E' },
    });
    assert.deepEqual((completion.completion as { values: string[] }).values, ['Engineering']);
  });
});
