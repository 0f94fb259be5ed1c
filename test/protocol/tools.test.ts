import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { ErrorCode } from '../../src/base/errors.ts';
import { definePlugin, defineTool } from '../../src/index.ts';
import type { TestClientError } from '../../src/testing/client/test-client.ts';
import echoPlugin from '../fixtures/echo-plugin.ts';
import { startClient } from '../helpers/client.ts';

const isCode = (code: number) => (e: TestClientError) => e.code === code;

describe('tools', () => {
  test('tools/list publishes JSON Schema computed from zod, titles and annotations', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    const tools = await client.listTools();
    const echo = tools.find((t) => t.name === 'echo')!;
    assert.equal(echo.title, 'Echo');
    assert.deepEqual(echo.annotations, { readOnlyHint: true });
    assert.deepEqual(echo.inputSchema, {
      type: 'object',
      properties: {
        text: { type: 'string', description: 'Text to echo' },
        name: { type: 'string', description: 'A name' },
      },
      required: ['text'],
    });
    assert.equal((tools.find((t) => t.name === 'add')!.outputSchema as { type: string }).type, 'object');
    await client.close();
  });

  test('pagination: every page follows nextCursor, an invalid cursor is -32602', async () => {
    const client = await startClient({ plugins: [echoPlugin], env: { MCP_PAGE_SIZE: '2' } });
    const first = await client.request('tools/list');
    assert.equal((first.tools as unknown[]).length, 2);
    assert.equal(typeof first.nextCursor, 'string');
    const all = await client.listTools();
    assert.equal(all.length, 7);
    assert.equal(new Set(all.map((t) => t.name)).size, 7);
    await assert.rejects(
      client.request('tools/list', { cursor: 'garbage!' }),
      isCode(ErrorCode.InvalidParams),
    );
    await client.close();
  });

  test('callTool / callText take the arguments as one object (an argument called name never collides)', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    assert.equal(await client.callText('echo', { text: 'hi', name: 'bob' }), 'bob: hi');
    await client.close();
  });

  test('output schema: structuredContent plus a text block', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    const result = await client.callTool('add', { a: 2, b: 3 });
    assert.deepEqual(result, {
      content: [{ type: 'text', text: '{"sum":5}' }],
      structuredContent: { sum: 5 },
    });
    await client.close();
  });

  test('an output that breaks its schema is -32603 without internals', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    await assert.rejects(client.callTool('bad_output'), (e: TestClientError) => {
      assert.equal(e.code, ErrorCode.InternalError);
      assert.match(e.message, /outputSchema/);
      assert.doesNotMatch(e.message, /\/work\/|at .*\.ts/);
      return true;
    });
    await client.close();
  });

  test('a throwing tool is an isError result naming the error', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    const result = await client.callTool('fail');
    assert.deepEqual(result, {
      content: [{ type: 'text', text: 'RangeError: this tool always fails' }],
      isError: true,
    });
    await client.close();
  });

  test('a handler written without async may return a value or throw at once', async () => {
    const plugin = definePlugin({
      name: 'sync',
      register(app) {
        app.add(
          defineTool({ name: 'now', description: 'Answers at once' }, (() => 'right away') as never),
          defineTool({ name: 'boom', description: 'Throws at once' }, (() => {
            throw new TypeError('thrown before any await');
          }) as never),
        );
      },
    });
    const client = await startClient({ plugins: [plugin], env: { MCP_TOOL_TIMEOUT_MS: '60000' } });
    assert.equal(await client.callText('now'), 'right away');
    const failed = await client.callTool('boom');
    assert.deepEqual(failed, {
      content: [{ type: 'text', text: 'TypeError: thrown before any await' }],
      isError: true,
    });
    await client.close();
  });

  test('unknown tool is -32602 on every version', async () => {
    for (const protocolVersion of ['2025-06-18', '2025-11-25']) {
      const client = await startClient({ plugins: [echoPlugin], protocolVersion });
      await assert.rejects(client.callTool('nope'), isCode(ErrorCode.InvalidParams));
      await client.close();
    }
    const modern = await startClient({ plugins: [echoPlugin], wire: '2026' });
    await assert.rejects(modern.callTool('nope'), isCode(ErrorCode.InvalidParams));
    await modern.close();
  });

  test('invalid arguments: -32602 through 2025-06-18, an isError result from 2025-11-25 (SEP-1303)', async () => {
    const old = await startClient({ plugins: [echoPlugin], protocolVersion: '2025-06-18' });
    await assert.rejects(old.callTool('add', { a: 'x' }), (e: TestClientError) => {
      assert.equal(e.code, ErrorCode.InvalidParams);
      assert.match(e.message, /a: .*number/);
      assert.match(e.message, /b: /);
      return true;
    });
    await old.close();
    for (const wire of ['2025', '2026'] as const) {
      const client = await startClient({ plugins: [echoPlugin], wire });
      const result = await client.callTool('add', { a: 'x' });
      assert.equal(result.isError, true);
      const text = (result.content as { text: string }[])[0]!.text;
      assert.match(text, /Invalid arguments for tool add/);
      assert.match(text, /a: /);
      assert.match(text, /b: /);
      await client.close();
    }
  });

  test('raw JSON Schema input is published verbatim and validated with a JSON Schema validator', async () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1, description: 'A count' } },
      required: ['n'],
      'x-vendor': 'kept',
    };
    const plugin = definePlugin({
      name: 'raw',
      register(app) {
        app.add(
          defineTool({ name: 'count', description: 'Counts', input: schema }, async (args) =>
            JSON.stringify(args),
          ),
        );
      },
    });
    const client = await startClient({ plugins: [plugin] });
    assert.deepEqual((await client.listTools())[0]!.inputSchema, schema);
    assert.equal(await client.callText('count', { n: 2 }), '{"n":2}');
    const bad = await client.callTool('count', { n: 0 });
    assert.equal(bad.isError, true);
    assert.match((bad.content as { text: string }[])[0]!.text, /n: must be >= 1/);
    await client.close();
  });

  test('the per-call timeout aborts the signal and answers isError saying so', async () => {
    let aborted = false;
    const plugin = definePlugin({
      name: 'hang',
      register(app) {
        app.add(
          defineTool({ name: 'hang', description: 'Never finishes' }, async (_a, ctx) => {
            await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
            aborted = true;
            return new Promise(() => {});
          }),
        );
      },
    });
    const client = await startClient({ plugins: [plugin], env: { MCP_TOOL_TIMEOUT_MS: '50' } });
    const result = await client.callTool('hang');
    assert.equal(result.isError, true);
    assert.match((result.content as { text: string }[])[0]!.text, /timed out after 50 ms/);
    assert.equal(aborted, true);
    await client.close();
  });

  test('notifications/cancelled aborts the handler and no response is sent', async () => {
    let sawAbort!: () => void;
    const aborted = new Promise<void>((r) => {
      sawAbort = r;
    });
    const plugin = definePlugin({
      name: 'cancel',
      register(app) {
        app.add(
          defineTool({ name: 'wait', description: 'Waits for cancellation' }, async (_a, ctx) => {
            await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
            sawAbort();
            return 'too late';
          }),
        );
      },
    });
    const client = await startClient({ plugins: [plugin] });
    const call = client.send({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'wait' } });
    await new Promise((r) => setTimeout(r, 20));
    await client.notify('notifications/cancelled', { requestId: 'c1', reason: 'user' });
    await aborted;
    const reply = await call;
    assert.ok(
      reply === undefined || ('result' in reply && reply.result.isError === true) || 'error' in reply,
    );
    await client.close();
  });

  test('progress notifications echo the token; none without a token', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    await client.request('tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'p1' } });
    const progress = client.notifications.filter((n) => n.method === 'notifications/progress');
    assert.deepEqual(
      progress.map((n) => n.params),
      [0, 50, 100].map((p) => ({ progressToken: 'p1', progress: p, total: 100 })),
    );
    client.notifications.length = 0;
    await client.callTool('progress');
    assert.equal(client.notifications.filter((n) => n.method === 'notifications/progress').length, 0);
    await client.close();
  });

  test('logging/setLevel answers {} and gates notifications/message', async () => {
    const client = await startClient({ plugins: [echoPlugin] });
    await client.callTool('progress');
    assert.equal(client.notifications.filter((n) => n.method === 'notifications/message').length, 1);
    assert.deepEqual(await client.request('logging/setLevel', { level: 'error' }), {});
    client.notifications.length = 0;
    await client.callTool('progress');
    assert.equal(client.notifications.filter((n) => n.method === 'notifications/message').length, 0);
    await assert.rejects(
      client.request('logging/setLevel', { level: 'loud' }),
      isCode(ErrorCode.InvalidParams),
    );
    await client.close();
  });

  test('2026 logging is request-scoped: only with _meta logLevel', async () => {
    const client = await startClient({ plugins: [echoPlugin], wire: '2026' });
    await client.callTool('progress');
    assert.equal(client.notifications.filter((n) => n.method === 'notifications/message').length, 0);
    await client.request('tools/call', {
      name: 'progress',
      arguments: {},
      _meta: { 'io.modelcontextprotocol/logLevel': 'debug' },
    });
    assert.equal(client.notifications.filter((n) => n.method === 'notifications/message').length, 1);
    await client.close();
  });

  test('adding a tool at run time sends notifications/tools/list_changed', async () => {
    let add!: () => void;
    const plugin = definePlugin({
      name: 'dyn',
      register(app) {
        add = () =>
          app.add(
            defineTool({ name: 'late', description: 'Added later', input: z.object({}) }, async () => 'late'),
          );
      },
    });
    const client = await startClient({ plugins: [plugin] });
    add();
    await client.drain();
    assert.ok(client.notifications.some((n) => n.method === 'notifications/tools/list_changed'));
    assert.equal(await client.callText('late'), 'late');
    await client.close();
  });
});
