/**
 * The per-call bookkeeping of the dispatcher: the client's presence (a departed client aborts
 * what runs for it), the table of running requests notifications/cancelled looks requests up
 * in, and the request context, which holds the request's one cancellation
 * (test/execution/cancellation.test.ts tests that one on its own).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildMcpServer } from '../../src/assembly/server.ts';
import { InternalCode, ProtocolError, ToolkitError } from '../../src/base/errors.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { Cancellation } from '../../src/execution/cancellation.ts';
import { definePlugin, defineTool } from '../../src/index.ts';
import { ClientPresence } from '../../src/protocol/exchange.ts';
import { RequestContext } from '../../src/protocol/request-context.ts';
import { RunningRequests } from '../../src/protocol/running.ts';
import { createLogger } from '../../src/telemetry/logger.ts';

function request(): { abort(reason: unknown): void; reasons: unknown[] } {
  const reasons: unknown[] = [];
  return { reasons, abort: (reason) => reasons.push(reason) };
}

describe('ClientPresence', () => {
  test('leaving aborts every request still tracked, one or many, with "the client went away"', () => {
    const presence = new ClientPresence();
    const [a, b, c, done] = [request(), request(), request(), request()];
    for (const r of [a, b, c, done]) presence.track(r);
    presence.untrack(done);
    presence.leave();
    for (const r of [a, b, c]) {
      assert.equal(r.reasons.length, 1);
      assert.ok(r.reasons[0] instanceof ProtocolError);
      assert.match((r.reasons[0] as Error).message, /the client went away/);
    }
    assert.deepEqual(done.reasons, []);
    assert.equal(presence.gone, true);
  });

  test('untracking the first request keeps the others tracked', () => {
    const presence = new ClientPresence();
    const [a, b] = [request(), request()];
    presence.track(a);
    presence.track(b);
    presence.untrack(a);
    presence.leave();
    assert.deepEqual(a.reasons, []);
    assert.equal(b.reasons.length, 1);
  });

  test('a request tracked after the client left is aborted at once; leaving twice aborts once', () => {
    const presence = new ClientPresence();
    const early = request();
    presence.track(early);
    presence.leave();
    presence.leave();
    assert.equal(early.reasons.length, 1);
    const late = request();
    presence.track(late);
    assert.equal(late.reasons.length, 1);
  });
});

describe('RunningRequests', () => {
  test('ids are kept as sent: 1 and "1" are different requests, and sessions do not mix', () => {
    const table = new RunningRequests<ReturnType<typeof request>>();
    const [one, stringOne, other] = [request(), request(), request()];
    table.enter(one, 1, undefined, 's1');
    table.enter(stringOne, '1', undefined, 's1');
    table.enter(other, 1, undefined, 's2');
    assert.equal(table.count, 3);
    assert.equal(table.cancel('s1', 1, 'why'), true);
    assert.deepEqual([one.reasons, stringOne.reasons, other.reasons], [['why'], [], []]);
    table.leave(one, 1, undefined, 's1');
    assert.equal(table.cancel('s1', 1, 'again'), false, 'a request that left is not found');
    assert.equal(table.cancel('s3', 1, 'why'), false);
    assert.equal(table.cancel('s1', '1', 'string'), true);
    assert.deepEqual(stringOne.reasons, ['string']);
    assert.equal(table.count, 2);
  });

  test('quiet sessions are dropped once they pile up; busy ones are kept', () => {
    const table = new RunningRequests<ReturnType<typeof request>>();
    const busy = request();
    table.enter(busy, 7, undefined, 'busy');
    for (let i = 0; i < 5000; i++) {
      const r = request();
      table.enter(r, 1, undefined, `s${i}`);
      table.leave(r, 1, undefined, `s${i}`);
    }
    assert.ok(table.sessions <= 1025, `${table.sessions} maps kept`);
    assert.equal(table.cancel('busy', 7, 'why'), true);
    assert.deepEqual(busy.reasons, ['why']);
  });

  test('a request entered with a presence is aborted when its client leaves, and only until it leaves', () => {
    const table = new RunningRequests<ReturnType<typeof request>>();
    const presence = new ClientPresence();
    const [running, done] = [request(), request()];
    table.enter(running, 1, presence, undefined);
    table.enter(done, 2, presence, undefined);
    table.leave(done, 2, presence, undefined);
    presence.leave();
    assert.equal(running.reasons.length, 1);
    assert.deepEqual(done.reasons, []);
  });
});

describe('RequestContext: the cancellation it holds', () => {
  test('the context holds a Cancellation rather than being one; the signal, the abort and the deadline all reach it', async () => {
    const seen: RequestContext[] = [];
    const plugin = definePlugin({
      name: 'holds',
      register(app) {
        app.add(
          defineTool(
            { name: 'hold', description: 'Waits for its signal', timeoutMs: 20 },
            async (_args, ctx) => {
              assert.ok(ctx instanceof RequestContext);
              seen.push(ctx);
              await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
              return 'stopped';
            },
          ),
        );
      },
    });
    const server = await buildMcpServer({
      settings: parseSettings({ MCP_PLUGINS: '' }),
      logger: createLogger({ level: 'silent', format: 'json' }),
      plugins: [{ definition: plugin as never, settings: {} }],
    });
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const reply = await server.dispatcher.handle(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'hold', arguments: {}, _meta: meta } },
      { transport: 'stdio' },
    );
    const result = (reply.body as { result?: { isError?: boolean } } | undefined)?.result;
    assert.equal(result?.isError, true, JSON.stringify(reply.body));
    const ctx = seen[0];
    assert.ok(ctx);
    assert.equal(ctx instanceof Cancellation, false, 'composition, not inheritance');
    assert.ok(ctx.cancellation instanceof Cancellation);
    // The call wrapper's deadline ran on the held cancellation and aborted it with a Timeout.
    const reason = ctx.cancellation.abortReason;
    assert.ok(reason instanceof ToolkitError && reason.code === InternalCode.Timeout);
    assert.equal(ctx.signal, ctx.cancellation.signal);
    assert.deepEqual([ctx.aborted, ctx.abortReason, ctx.signal.reason], [true, reason, reason]);
    // An abort through the context is the cancellation's, and the first reason stays.
    ctx.abort(new Error('cancelled'));
    assert.equal(ctx.cancellation.abortReason, reason);
  });
});
