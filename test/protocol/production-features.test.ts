/**
 * What a production tool needs from its framework: middleware per MCP method, declared tool
 * errors, progress heartbeats, visibility by caller and the HTTP request a handler sees.
 * In-process through TestClient (every message round-trips through JSON), and over the real
 * HTTP transport where the request's headers matter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { ErrorCode } from '../../src/base/errors.ts';
import type { JsonObject } from '../../src/base/jsonrpc.ts';
import { definePlugin, defineTool, type Middleware } from '../../src/index.ts';
import { ERROR_META_KEY, ERRORS_META_KEY } from '../../src/protocol.ts';
import { TestClient, TestClientError } from '../../src/testing/client/test-client.ts';
import { echoPlugin } from '../fixtures/echo-plugin.ts';
import { productionPlugin, releaseHeld } from '../fixtures/production-plugin.ts';
import { until } from '../helpers/until.ts';
import { buildTestApp, type TestApp, V2025 } from '../transports/http-helpers.ts';

const PRODUCTION = './test/fixtures/production-plugin.ts';

function text(result: JsonObject): string {
  return ((result.content as JsonObject[]) ?? []).map((c) => String(c.text)).join('\n');
}

/** A plugin that only adds middleware (plus the echo tools through the echo plugin). */
function middlewarePlugin(name: string, ...middleware: Middleware[]) {
  return definePlugin({
    name,
    register(app) {
      for (const m of middleware) app.use(m);
    },
  });
}

describe('middleware', () => {
  test('hooks run in registration order, onRequest outermost, around the handler', async () => {
    const seen: string[] = [];
    const trace = (label: string): Middleware => ({
      async onRequest(call, next) {
        seen.push(`${label}:request:${call.method}`);
        return next();
      },
      async onCallTool(call, next) {
        seen.push(`${label}:before:${String(call.params.name)}`);
        const result = await next();
        seen.push(`${label}:after`);
        return result;
      },
    });
    const client = await TestClient.start({
      plugins: [echoPlugin, middlewarePlugin('first', trace('a')), middlewarePlugin('second', trace('b'))],
    });
    try {
      assert.equal(await client.callText('echo', { text: 'hi' }), 'hi');
      assert.deepEqual(seen, [
        'a:request:tools/call',
        'b:request:tools/call',
        'a:before:echo',
        'b:before:echo',
        'b:after',
        'a:after',
      ]);
    } finally {
      await client.close();
    }
  });

  test('a hook can change arguments, answer without the handler, and post-process results', async () => {
    const client = await TestClient.start({
      plugins: [
        echoPlugin,
        middlewarePlugin('shape', {
          async onCallTool(call, next) {
            const args = (call.params.arguments ?? {}) as JsonObject;
            if (args.text === 'short-circuit')
              return { content: [{ type: 'text', text: 'from middleware' }] };
            call.params = { ...call.params, arguments: { ...args, text: String(args.text).toUpperCase() } };
            const result = await next();
            return {
              ...result,
              content: [...(result.content as JsonObject[]), { type: 'text', text: 'audited' }],
            };
          },
          async onListTools(_call, next) {
            const result = await next();
            return { ...result, tools: (result.tools as JsonObject[]).filter((t) => t.name !== 'fail') };
          },
        }),
      ],
    });
    try {
      assert.equal(await client.callText('echo', { text: 'hi' }), 'HI\naudited');
      assert.equal(await client.callText('echo', { text: 'short-circuit' }), 'from middleware');
      // The changed arguments are validated like the client's own.
      const names = (await client.listTools()).map((t) => t.name);
      assert.ok(names.includes('echo') && !names.includes('fail'));
    } finally {
      await client.close();
    }
  });

  test('what a hook throws is mapped as a handler failure would be', async () => {
    const client = await TestClient.start({
      plugins: [
        echoPlugin,
        middlewarePlugin('deny', {
          onCallTool() {
            throw new Error('denied by policy');
          },
          onReadResource() {
            throw new Error('reads are off');
          },
        }),
      ],
    });
    try {
      const result = await client.callTool('echo', { text: 'x' });
      assert.equal(result.isError, true);
      assert.equal(text(result), 'Error: denied by policy');
      await assert.rejects(client.readResource('echo://static'), (err: TestClientError) => {
        assert.equal(err.code, ErrorCode.InternalError);
        return true;
      });
    } finally {
      await client.close();
    }
  });

  test('a middleware with an unknown hook stops start-up, naming the plugin and the hook', async () => {
    await assert.rejects(
      TestClient.start({
        plugins: [middlewarePlugin('typo', { onCalltool: async () => ({}) } as Middleware)],
      }),
      /Plugin "typo": unknown middleware hook "onCalltool"/,
    );
  });
});

describe('declared tool errors', () => {
  let client: TestClient;
  before(async () => {
    client = await TestClient.start({ plugins: [productionPlugin] });
  });
  after(() => client.close());

  test('ctx.fail gives the model what happened, whether to retry and the hint, and programs an error object', async () => {
    const result = await client.callTool('find', { id: 'zzz' });
    assert.equal(result.isError, true);
    assert.equal(
      text(result),
      'not_found: No record with id zzz. Retrying the same call will not help. List the records first and use an id from the list.',
    );
    assert.deepEqual((result._meta as JsonObject)[ERROR_META_KEY], {
      code: 'not_found',
      message: 'No record with id zzz',
      retryable: false,
      hint: 'List the records first and use an id from the list.',
      data: { id: 'zzz' },
    });
    // Not in structuredContent unless the tool asks: v1 clients would check it against the output schema.
    assert.equal(result.structuredContent, undefined);
  });

  test('a retryable error says so, with the declared default message', async () => {
    const result = await client.callTool('find', { id: 'busy' });
    assert.equal(text(result), 'busy: The store is busy. Retrying later may succeed.');
    assert.equal(((result._meta as JsonObject)[ERROR_META_KEY] as JsonObject).retryable, true);
  });

  test('structuredErrors puts the error object in structuredContent too', async () => {
    const result = await client.callTool('find_text', { id: 'x' });
    assert.equal(result.isError, true);
    assert.deepEqual(result.structuredContent, {
      error: { code: 'not_found', message: 'not_found', retryable: false, data: { id: 'x' } },
    });
    assert.match(text(result), /^not_found: not_found\. Retrying/);
  });

  test('the declared codes are published on the tool, and in the description when asked', async () => {
    const tools = await client.listTools();
    const find = tools.find((t) => t.name === 'find') as JsonObject;
    assert.deepEqual((find._meta as JsonObject)[ERRORS_META_KEY], {
      not_found: { retryable: false, hint: 'List the records first and use an id from the list.' },
      busy: { retryable: true },
    });
    assert.match(
      String(find.description),
      /Possible errors: not_found: List the records.*; busy \(retryable\)\./,
    );
    const plain = tools.find((t) => t.name === 'find_text') as JsonObject;
    assert.equal(
      plain.description,
      'Like find, without an output schema, with its errors in structuredContent too',
    );
  });

  test('an undeclared exception stays ErrorName: message', async () => {
    const echo = await TestClient.start({ plugins: [echoPlugin] });
    try {
      assert.equal(await echo.callText('fail'), 'RangeError: this tool always fails');
    } finally {
      await echo.close();
    }
  });

  test('a bad error declaration fails at definition time', () => {
    assert.throws(
      () => defineTool({ name: 't', description: 'd', errors: { NotFound: {} } }, async () => ''),
      /error code "NotFound" is invalid/,
    );
  });
});

describe('progress heartbeats', () => {
  /**
   * Calls a tool with a progressToken; returns the result and the progress notifications seen.
   * With `heartbeats`, the tool is one that runs until released: it is released once that many
   * progress notifications arrived (timers fire late on a loaded machine: a fixed run time
   * would see fewer).
   */
  async function callWithProgress(client: TestClient, name: string, args: JsonObject, heartbeats = 0) {
    const before = client.log.length;
    const progressSeen = () =>
      client.log
        .slice(before)
        .map((e) => e.message as unknown as JsonObject)
        .filter((m) => m.method === 'notifications/progress')
        .map((m) => m.params as JsonObject);
    const replying = client.send({
      jsonrpc: '2.0',
      id: `hb-${name}`,
      method: 'tools/call',
      params: { name, arguments: args, _meta: { progressToken: 'tok' } },
    }) as Promise<{ result: JsonObject }>;
    if (heartbeats > 0) {
      await until(() => progressSeen().length >= heartbeats, {
        timeoutMs: 60_000,
        message: `${heartbeats} heartbeats never arrived`,
      });
      releaseHeld();
    }
    const reply = await replying;
    return { result: reply.result, progress: progressSeen() };
  }

  test('a quiet tool sends increasing progress every heartbeatMs while it runs', async () => {
    const client = await TestClient.start({ plugins: [productionPlugin] });
    try {
      const { result, progress } = await callWithProgress(client, 'hold', {}, 3);
      assert.equal(text(result), 'released');
      assert.ok(progress.length >= 3, `${progress.length} heartbeats`);
      for (const p of progress) {
        assert.equal(p.progressToken, 'tok');
        assert.equal(p.message, 'still working');
      }
      const values = progress.map((p) => Number(p.progress));
      assert.ok(
        values.every((v, i) => i === 0 || v > (values[i - 1] as number)),
        `increasing: ${values}`,
      );
    } finally {
      await client.close();
    }
  });

  test('off by default; MCP_PROGRESS_HEARTBEAT_MS turns it on for every tool', async () => {
    const quiet = await TestClient.start({ plugins: [productionPlugin] });
    const beating = await TestClient.start({
      plugins: [productionPlugin],
      env: { MCP_PROGRESS_HEARTBEAT_MS: '100' },
    });
    try {
      assert.equal((await callWithProgress(quiet, 'wait_quietly', { ms: 350 })).progress.length, 0);
      assert.ok((await callWithProgress(beating, 'hold_quietly', {}, 2)).progress.length >= 2);
    } finally {
      await quiet.close();
      await beating.close();
    }
  });

  test('no progressToken, no heartbeat', async () => {
    const client = await TestClient.start({ plugins: [productionPlugin] });
    try {
      const before = client.log.length;
      assert.equal(await client.callText('wait', { ms: 300 }), 'waited');
      const notes = client.log
        .slice(before)
        .filter((e) => (e.message as unknown as JsonObject).method === 'notifications/progress');
      assert.equal(notes.length, 0);
    } finally {
      await client.close();
    }
  });
});

describe('visibility by caller', () => {
  const admin = { clientId: 'admin', scopes: ['files:write', 'admin'] };
  const user = { clientId: 'user', scopes: [] };

  test('lists leave out what the caller may not use; calls to it answer as unknown', async () => {
    const asUser = await TestClient.start({ plugins: [productionPlugin], identity: user });
    const asAdmin = await TestClient.start({ plugins: [productionPlugin], identity: admin });
    try {
      const userTools = (await asUser.listTools()).map((t) => t.name);
      assert.ok(!userTools.includes('admin_only') && !userTools.includes('scoped'));
      const adminTools = (await asAdmin.listTools()).map((t) => t.name);
      assert.ok(adminTools.includes('admin_only') && adminTools.includes('scoped'));

      const hidden = await asUser.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'admin_only', arguments: {} },
      });
      const unknown = await asUser.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'admin_onli', arguments: {} },
      });
      assert.deepEqual(
        (hidden as unknown as { error: JsonObject }).error.code,
        (unknown as unknown as { error: JsonObject }).error.code,
      );
      assert.equal(await asAdmin.callText('admin_only'), 'admin');

      const userResources = (await asUser.request('resources/list')).resources as JsonObject[];
      assert.ok(!userResources.some((r) => r.uri === 'secret://admin'));
      await assert.rejects(asUser.readResource('secret://admin'), (err: TestClientError) => {
        assert.equal(err.code, ErrorCode.InvalidParams);
        return true;
      });
      assert.equal(
        ((await asAdmin.readResource('secret://admin')).contents as JsonObject[])[0]?.text,
        'notes',
      );

      const userPrompts = (await asUser.request('prompts/list')).prompts as JsonObject[];
      assert.ok(!userPrompts.some((p) => p.name === 'admin_prompt'));
      await assert.rejects(asUser.getPrompt('admin_prompt'), TestClientError);
      assert.ok((await asAdmin.getPrompt('admin_prompt')).messages);
    } finally {
      await asUser.close();
      await asAdmin.close();
    }
  });

  test('without auth (no identity) everything is listed', async () => {
    const client = await TestClient.start({ plugins: [productionPlugin] });
    try {
      const names = (await client.listTools()).map((t) => t.name);
      assert.ok(names.includes('admin_only') && names.includes('scoped'));
    } finally {
      await client.close();
    }
  });
});

describe('ctx.http: the request a handler sees', () => {
  let plain: TestApp;
  let proxied: TestApp;
  before(async () => {
    plain = await buildTestApp({ MCP_PLUGINS: PRODUCTION });
    proxied = await buildTestApp({ MCP_PLUGINS: PRODUCTION, MCP_TRUST_PROXY: '1' });
  });
  after(async () => {
    await plain.close();
    await proxied.close();
  });

  async function seen(t: TestApp, headers: Record<string, string>): Promise<JsonObject> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/mcp?tenant=7',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'request_info',
        ...headers,
      },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'request_info',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
    });
    const body = res.json() as { result: JsonObject };
    return JSON.parse(text(body.result)) as JsonObject;
  }

  test('method, path and headers, without credentials', async () => {
    const info = await seen(plain, {
      authorization: 'Bearer secret-token',
      cookie: 'session=abc',
      'x-api-key': 'k-123',
      'x-amz-security-token': 'aws',
      'x-authenticated-user': 'ada@example.com',
    });
    assert.equal(info.method, 'POST');
    assert.equal(info.path, '/mcp');
    const headers = info.headers as Record<string, string>;
    assert.equal(headers['x-authenticated-user'], 'ada@example.com');
    for (const hidden of ['authorization', 'cookie', 'x-api-key', 'x-amz-security-token']) {
      assert.equal(headers[hidden], undefined, hidden);
    }
    assert.doesNotMatch(JSON.stringify(info), /secret-token|abc|k-123|aws/);
  });

  test('forwarded headers only behind a trusted proxy (MCP_TRUST_PROXY)', async () => {
    const forwarded = { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https' };
    assert.equal(((await seen(plain, forwarded)).headers as JsonObject)['x-forwarded-for'], undefined);
    assert.equal(((await seen(proxied, forwarded)).headers as JsonObject)['x-forwarded-for'], '203.0.113.9');
  });

  test('undefined on stdio and in-process', async () => {
    const client = await TestClient.start({ plugins: [productionPlugin], protocolVersion: V2025 });
    try {
      assert.equal(await client.callText('request_info'), 'null');
    } finally {
      await client.close();
    }
  });
});

test('zod is the only schema library the fixtures need', () => {
  // Keeps the import used: the fixtures' schemas are zod, like a user's.
  assert.ok(z.string().safeParse('x').success);
});
