/**
 * The request observer on the real dispatcher, in process, with our Node SDK exporting to a
 * real OTLP receiver: every handler runs inside the request span's context (tools, resources,
 * templates, prompts, completions, and each round of a 2025 input exchange), `ctx.span` is that
 * span, and the request line and `ctx.logger` lines carry its trace_id, span_id and trace_flags.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { type Span, trace } from '@opentelemetry/api';
import { z } from 'zod';
import { buildMcpServer } from '../../src/assembly/server.ts';
import type { JsonRpcMessage } from '../../src/base/jsonrpc.ts';
import { parseSettings } from '../../src/config/settings.ts';
import {
  definePlugin,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  type HandlerContext,
} from '../../src/index.ts';
import { createLogger } from '../../src/telemetry/logger.ts';
import { parseTracingConfig } from '../../src/telemetry/otel-settings.ts';
import { createRequestObserver } from '../../src/telemetry/request-observer.ts';
import { createTelemetry, NOOP_TELEMETRY } from '../../src/telemetry/tracing.ts';
import { createConnection } from '../../src/transports/connection.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const PARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';
const V2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

function memoryLogger(logToolArgs = false) {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  const logger = createLogger({ level: 'info', format: 'json', destination: sink, logToolArgs });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, lines };
}

/** What each handler saw: the active span, `ctx.span`, and the spans it started itself. */
const seen = new Map<string, { active: Span | undefined; ctxSpan: Span }>();
function note(name: string, ctx: HandlerContext): void {
  seen.set(name, { active: trace.getActiveSpan(), ctxSpan: ctx.span });
  trace.getTracer('plugin').startSpan(`${name} own`).end();
}

const plugin = definePlugin({
  name: 'traced',
  register(app) {
    app.add(
      defineTool(
        { name: 'work', description: 'Logs and starts a span', input: z.object({ n: z.number() }) },
        async ({ n }, ctx) => {
          await new Promise((r) => setTimeout(r, 1));
          note('tool', ctx);
          ctx.span.setAttribute('app.n', n);
          ctx.logger.info({ n }, 'working');
          return `done ${n}`;
        },
      ),
      defineTool({ name: 'ask', description: 'Asks the user, twice' }, async (_args, ctx) => {
        const round = ctx.inputResponses === undefined ? 1 : 2;
        note(`ask round ${round}`, ctx);
        if (round === 1) {
          return ctx.askInput(
            { q: ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: {} } }) },
            1,
          );
        }
        return 'thanks';
      }),
      defineResource({ uri: 'mem://a', name: 'a' }, async (_uri, ctx) => {
        note('resource', ctx);
        return 'A';
      }),
      defineResourceTemplate(
        {
          uriTemplate: 'mem://t/{id}',
          name: 't',
          complete: {
            id: async (_v, { ctx }) => {
              note('completion', ctx);
              return ['1'];
            },
          },
        },
        async (_uri, _vars, ctx) => {
          note('template', ctx);
          return 'T';
        },
      ),
      definePrompt({ name: 'review', description: 'Review' }, async (_args, ctx) => {
        note('prompt', ctx);
        return 'Review this';
      }),
    );
  },
});

let receiver: OtlpReceiver;
before(async () => {
  receiver = await startOtlpReceiver();
});
after(() => receiver.close());

async function tracedServer(t: { after(fn: () => unknown): void }, service: string) {
  const settings = parseSettings({ MCP_PLUGINS: '' });
  const config = parseTracingConfig(
    { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: service, OTEL_BSP_SCHEDULE_DELAY: '20' },
    settings,
    '1',
  );
  const telemetry = await createTelemetry({ config });
  t.after(() => telemetry.shutdown(2000));
  const { logger, lines } = memoryLogger();
  const server = await buildMcpServer({
    settings,
    logger,
    telemetry,
    observe: createRequestObserver({ telemetry, logger }),
    plugins: [{ definition: plugin as never, settings: {} }],
  });
  return { server, telemetry, lines };
}

describe('handlers run in the request span', () => {
  test('tools, resources, templates, prompts and completions: the active span is ctx.span, their spans are children', async (t) => {
    seen.clear();
    const { server, telemetry } = await tracedServer(t, 'observer-handlers');
    const ex = { transport: 'stdio' as const };
    const requests: [string, Record<string, unknown>][] = [
      ['tools/call', { name: 'work', arguments: { n: 1 } }],
      ['resources/read', { uri: 'mem://a' }],
      ['resources/read', { uri: 'mem://t/7' }],
      ['prompts/get', { name: 'review' }],
      [
        'completion/complete',
        { ref: { type: 'ref/resource', uri: 'mem://t/{id}' }, argument: { name: 'id', value: '' } },
      ],
    ];
    for (const [i, [method, params]] of requests.entries()) {
      const reply = await server.dispatcher.handle(
        { jsonrpc: '2.0', id: i, method, params: { ...params, _meta: V2026 } },
        ex,
      );
      assert.ok(
        reply.body && !Array.isArray(reply.body) && 'result' in reply.body,
        `${method}: ${JSON.stringify(reply.body)}`,
      );
    }
    await telemetry.shutdown(2000);
    const spans = await receiver.waitForSpans(
      (s) => s.resource['service.name'] === 'observer-handlers',
      5000,
      10,
    );
    for (const name of ['tool', 'resource', 'template', 'prompt', 'completion']) {
      const s = seen.get(name);
      assert.ok(s, `${name} ran`);
      assert.equal(s.active, s.ctxSpan, `${name}: trace.getActiveSpan() is ctx.span`);
      const own = spans.find((x) => x.name === `${name} own`);
      const parent = spans.find((x) => x.spanId === own?.parentSpanId);
      assert.equal(
        parent?.spanId,
        s.ctxSpan.spanContext().spanId,
        `${name}: its span is a child of the request span`,
      );
      assert.equal(parent?.kind, 'SERVER');
    }
    assert.equal(spans.find((s) => s.name === 'tools/call work')?.attributes['app.n'], 1);
  });

  test('each round of a 2025 input exchange runs in the same request span', async (t) => {
    seen.clear();
    const { server, telemetry } = await tracedServer(t, 'observer-rounds');
    const sent: JsonRpcMessage[] = [];
    const connection = createConnection(server, (m) => {
      for (const message of Array.isArray(m) ? m : [m]) {
        sent.push(message);
        // The client answers the elicitation.
        if ('method' in message && message.method === 'elicitation/create' && 'id' in message) {
          void connection.receive({
            jsonrpc: '2.0',
            id: message.id,
            result: { action: 'accept', content: {} },
          });
        }
      }
    });
    t.after(() => connection.close());
    await connection.receive({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: {} },
        clientInfo: { name: 't', version: '1' },
      },
    });
    await connection.receive({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'ask', arguments: {} },
    });
    const answer = sent.find((m) => 'id' in m && m.id === 2 && 'result' in m);
    assert.ok(answer, JSON.stringify(sent));
    const one = seen.get('ask round 1');
    const two = seen.get('ask round 2');
    assert.ok(one && two);
    assert.equal(one.active, one.ctxSpan);
    assert.equal(two.active, one.ctxSpan, 'the second round runs in the same span');
    await telemetry.shutdown(2000);
    const spans = await receiver.waitForSpans(
      (s) => s.resource['service.name'] === 'observer-rounds',
      5000,
      4,
    );
    const call = spans.find((s) => s.name === 'tools/call ask');
    const init = spans.find((s) => s.name === 'initialize');
    assert.equal(spans.filter((s) => s.parentSpanId === call?.spanId).length, 2);
    // initialize: the negotiated version and the new session are on its span.
    assert.equal(init?.attributes['mcp.protocol.version'], '2025-11-25');
    assert.equal(init?.attributes['mcp.session.id'], connection.sessionId);
  });
});

describe('log lines join the trace', () => {
  test('the request line and ctx.logger lines carry the request span’s trace_id, span_id, trace_flags', async (t) => {
    const { server, telemetry, lines } = await tracedServer(t, 'observer-logs');
    await server.dispatcher.handle(
      {
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: {
          name: 'work',
          arguments: { n: 2 },
          _meta: { ...V2026, traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01` },
        },
      },
      { transport: 'stdio' },
    );
    await telemetry.shutdown(2000);
    const [span] = await receiver.waitForSpans(
      (s) => s.resource['service.name'] === 'observer-logs' && s.name === 'tools/call work',
      5000,
    );
    assert.equal(span?.traceId, PARENT_TRACE);
    const working = lines().find((l) => l.msg === 'working');
    const request = lines().find((l) => l.msg === 'mcp request');
    for (const line of [working, request]) {
      assert.equal(line?.trace_id, PARENT_TRACE);
      assert.equal(line?.span_id, span?.spanId);
      assert.equal(line?.trace_flags, '01');
    }
    assert.equal(request?.tool, 'work');
    assert.equal(request?.outcome, 'ok');
    assert.equal(working?.requestId, 5);
  });

  test('without tracing: no trace fields; tool arguments only when allowed', async () => {
    for (const logToolArgs of [false, true]) {
      const { logger, lines } = memoryLogger(logToolArgs);
      const server = await buildMcpServer({
        settings: parseSettings({ MCP_PLUGINS: '' }),
        logger,
        telemetry: NOOP_TELEMETRY,
        observe: createRequestObserver({ telemetry: NOOP_TELEMETRY, logger }),
        plugins: [{ definition: plugin as never, settings: {} }],
      });
      await server.dispatcher.handle(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'work', arguments: { n: 3 }, _meta: V2026 },
        },
        { transport: 'stdio' },
      );
      const request = lines().find((l) => l.msg === 'mcp request');
      const working = lines().find((l) => l.msg === 'working');
      assert.equal(request?.outcome, 'ok');
      for (const line of [request, working]) {
        assert.equal('trace_id' in (line ?? {}), false);
        assert.equal('span_id' in (line ?? {}), false);
      }
      assert.equal('args' in (request ?? {}), logToolArgs);
      await server.close();
    }
  });
});
