/**
 * One request pipeline (issue 29): the definition a request names (the tool of a `tools/call`,
 * the prompt of a `prompts/get`, the resource or template match of a `resources/read`) is
 * looked up in the registry once, where the request record is made, before any middleware runs;
 * everything after (the middleware's `call.tool`, the 2026 header checks, the method handler,
 * a hook's failure) reads `record.target`. Counted by wrapping the server's Registry lookups,
 * on both wires, in-process and over HTTP, with middleware installed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { JsonObject } from '../../src/base/jsonrpc.ts';
import { definePlugin, type Middleware } from '../../src/index.ts';
import type { Registry } from '../../src/registry/registry.ts';
import { TestClient } from '../../src/testing/client/test-client.ts';
import echoPlugin from '../fixtures/echo-plugin.ts';
import { startServer } from '../helpers/client.ts';
import { buildTestApp, post, req, type TestApp, V2026 } from '../transports/http-helpers.ts';

const LOOKUPS = ['tool', 'prompt', 'resource', 'resolveResource', 'matchTemplate', 'templateByName'] as const;

/**
 * Counts the registry's lookups from outside: each wrapped method adds one per call made from
 * outside the registry (a lookup that calls another, `resolveResource` → `matchTemplate`, is one).
 */
function countLookups(registry: Registry): { calls: string[]; restore(): void } {
  const calls: string[] = [];
  const own = registry as unknown as Record<string, (...args: unknown[]) => unknown>;
  let depth = 0;
  for (const name of LOOKUPS) {
    const original = own[name] as (...args: unknown[]) => unknown;
    own[name] = function (this: unknown, ...args: unknown[]) {
      if (depth === 0) calls.push(`${name}(${String(args[0])})`);
      depth++;
      try {
        return original.apply(this, args);
      } finally {
        depth--;
      }
    };
  }
  return {
    calls,
    restore() {
      for (const name of LOOKUPS) delete own[name];
    },
  };
}

/** Middleware on every method and each of the three, noting how many lookups were made when it ran. */
function spyMiddleware(seen: number[], calls: () => readonly string[]): Middleware {
  const note = async (_call: unknown, next: () => Promise<JsonObject>) => {
    seen.push(calls().length);
    return next();
  };
  return { name: 'spy', onRequest: note, onCallTool: note, onGetPrompt: note, onReadResource: note };
}

const CASES: readonly { method: string; params: JsonObject; lookup: string }[] = [
  { method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } }, lookup: 'tool(echo)' },
  { method: 'prompts/get', params: { name: 'greet', arguments: { who: 'Ada' } }, lookup: 'prompt(greet)' },
  { method: 'resources/read', params: { uri: 'test://hello' }, lookup: 'resolveResource(test://hello)' },
  {
    method: 'resources/read',
    params: { uri: 'test://items/7' },
    lookup: 'resolveResource(test://items/7)',
  },
];

describe('the target is resolved once per request', () => {
  for (const wire of ['2025', '2026'] as const) {
    for (const { method, params, lookup } of CASES) {
      test(`${method} ${JSON.stringify(params.name ?? params.uri)} (${wire} wire, with middleware): one lookup, before the middleware`, async () => {
        const seen: number[] = [];
        let counter: ReturnType<typeof countLookups> | undefined;
        const spy = definePlugin({
          name: 'spy',
          register(app) {
            app.use(spyMiddleware(seen, () => counter?.calls ?? []));
          },
        });
        const server = await startServer({ plugins: [echoPlugin, spy] });
        const client = await TestClient.start({ server, wire });
        counter = countLookups(server.server.registry);
        try {
          const result = await client.request(method, params);
          assert.equal(result.isError, undefined, JSON.stringify(result));
          assert.deepEqual(counter.calls, [lookup]);
          // onRequest and the method's own hook both ran after the one lookup.
          assert.deepEqual(seen, [1, 1]);
        } finally {
          counter.restore();
          await client.close();
          await server.close();
        }
      });
    }
  }

  test('an unknown tool is looked up once too, and still answers -32602', async () => {
    const server = await startServer({ plugins: [echoPlugin] });
    const client = await TestClient.start({ server });
    const counter = countLookups(server.server.registry);
    try {
      await assert.rejects(
        client.request('tools/call', { name: 'nope', arguments: {} }),
        /Unknown tool: nope/,
      );
      assert.deepEqual(counter.calls, ['tool(nope)']);
    } finally {
      counter.restore();
      await client.close();
      await server.close();
    }
  });

  test('a hook that renames the tool gets the renamed one (looked up for the new name)', async () => {
    const rename = definePlugin({
      name: 'rename',
      register(app) {
        app.use({
          onCallTool(call, next) {
            call.params = { ...call.params, name: 'add', arguments: { a: 2, b: 3 } };
            return next();
          },
        });
      },
    });
    const server = await startServer({ plugins: [echoPlugin, rename] });
    const client = await TestClient.start({ server });
    const counter = countLookups(server.server.registry);
    try {
      const result = await client.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
      assert.deepEqual(result.structuredContent, { sum: 5 });
      assert.deepEqual(counter.calls, ['tool(echo)', 'tool(add)']);
    } finally {
      counter.restore();
      await client.close();
      await server.close();
    }
  });

  describe('over HTTP on the 2026 wire (the header checks read the target too)', () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp();
    });
    after(() => t?.close());

    test('tools/call: one lookup', async () => {
      const counter = countLookups(t.server.registry);
      try {
        const res = await post(
          t.app,
          req(1, 'tools/call', {
            name: 'echo',
            arguments: { text: 'hi' },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': V2026,
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          }),
          { version: V2026, headers: { 'mcp-method': 'tools/call', 'mcp-name': 'echo' } },
        );
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(counter.calls, ['tool(echo)']);
      } finally {
        counter.restore();
      }
    });
  });
});
