/**
 * A drain waits for the end of a call's stream, not only for its handler: the result's event
 * is stored (and the stream released) before the SSE streams are ended and the replica lets go
 * of its shared state. Here the store holds the result's append until the test lets it go; the
 * drain, started meanwhile, ends after it, and the client gets the result. Without that wait the
 * drain ended the stream under the pending write and a replica stopping on SIGTERM lost the
 * result that a resume on another replica then asked for.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import Fastify from 'fastify';
import { pino } from 'pino';
import conformancePlugin from '../../plugins/conformance/index.ts';
import { buildMcpServer } from '../../src/assembly/server.ts';
import { httpOptions } from '../../src/assembly/transport-options.ts';
import type { ProtocolError } from '../../src/base/errors.ts';
import { parseSettings } from '../../src/config/settings.ts';
import type { PluginDefinition } from '../../src/plugin/define.ts';
import { parsePluginSettings } from '../../src/plugin/loader.ts';
import type { EventStore } from '../../src/transports/deps.ts';
import { createMemoryEventStore } from '../../src/transports/edge/event-store.ts';
import { drain } from '../../src/transports/http/mount.ts';
import { mcpRoutes } from '../../src/transports/http/routes.ts';
import { openSession, post, request, SseReader, sessionHeaders, V2025 } from '../conformance/http-fixture.ts';

test('the drain ends after the result of a finished call is stored, and the client gets it', async () => {
  const env = { MCP_LOG_LEVEL: 'silent', MCP_HTTP_HOST: '127.0.0.1', MCP_HTTP_PORT: '0' };
  const settings = parseSettings(env);
  const definition = conformancePlugin as unknown as PluginDefinition<Record<string, unknown>>;
  const server = await buildMcpServer({
    settings,
    logger: pino({ level: 'silent' }),
    plugins: [{ definition, settings: parsePluginSettings(definition, env) }],
  });

  const order: string[] = [];
  let held!: () => void;
  const resultReached = new Promise<void>((reached) => {
    held = reached;
  });
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const inner = createMemoryEventStore({ retention: 100 });
  const store: EventStore = {
    async append(streamId, message, meta) {
      if (message !== undefined && 'result' in message) {
        held();
        await gate;
        const id = await inner.append(streamId, message, meta);
        order.push('result stored');
        return id;
      }
      return inner.append(streamId, message, meta);
    },
    streamOf: (eventId) => inner.streamOf(eventId),
    after: (eventId) => inner.after(eventId),
    release: (streamId) => inner.release(streamId),
  };

  const streams = new Set<ServerResponse>();
  const interrupts = new Set<(reason: ProtocolError) => void>();
  const finishing = new Set<Promise<void>>();
  const app = Fastify({ logger: false });
  await app.register(mcpRoutes, {
    server,
    http: httpOptions(settings),
    eventStore: store,
    streams,
    interrupts,
    finishing,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  assert.ok(typeof address === 'object' && address);
  const url = `http://127.0.0.1:${address.port}${settings.MCP_HTTP_PATH}`;
  try {
    const session = await openSession(url);
    const res = await post(
      url,
      request(7, 'tools/call', { name: 'test_tool_with_logging', arguments: {} }),
      sessionHeaders(session),
    );
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const events = new SseReader(res, V2025, 'tools/call').rest();
    await resultReached;
    assert.equal(server.dispatcher.inflightCount, 0, 'the handler has returned');
    assert.equal(finishing.size, 1, 'its stream is still being finished');

    const drained = drain(server, streams, Date.now() + 60_000, interrupts, finishing).then(() => {
      order.push('drained');
    });
    // Give a drain that does not wait every chance to end the stream first.
    for (let i = 0; i < 5; i++) await tick();
    release();
    await drained;
    assert.deepEqual(order, ['result stored', 'drained']);
    const results = (await events).filter((e) => e.message && 'result' in e.message);
    assert.equal(results.length, 1, 'the client got the result');
    assert.equal(results[0]?.message?.id, 7);
  } finally {
    release();
    app.server.closeAllConnections();
    await app.close();
    await server.close();
  }
});
