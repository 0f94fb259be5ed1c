/**
 * The trace context an HTTP upstream receives from the proxy: the real CLI with our own
 * OpenTelemetry SDK (a real OTLP receiver), in front of an upstream on the official SDK's
 * streamable-HTTP server in this process, which keeps the headers and the `_meta` of each
 * `tools/call`. `_meta.traceparent` names the proxy's CLIENT span; the request carries exactly
 * one `traceparent` header: with the undici instrumentation on (the default), its HTTP span's,
 * a child of the proxy's span; with it off, the proxy's own, the same as in `_meta`.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../../helpers/otlp-receiver.ts';
import { spawnHttpServer } from '../../helpers/spawn-server.ts';

interface Seen {
  readonly traceparent: string[] | undefined;
  readonly meta: Record<string, unknown>;
}

let receiver: OtlpReceiver;
let upstream: Server;
let upstreamUrl: string;
const calls: Seen[] = [];

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
}

before(async () => {
  receiver = await startOtlpReceiver();
  // Stateless: a server and a transport per POST, as the SDK's examples do.
  upstream = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const body = (await bodyOf(req)) as { method?: string; params?: { _meta?: Record<string, unknown> } };
      if (body?.method === 'tools/call') {
        calls.push({ traceparent: req.headersDistinct.traceparent, meta: body.params?._meta ?? {} });
      }
      const server = new McpServer({ name: 'http-upstream', version: '1.0.0' });
      server.registerTool('hello', { description: 'Says hello' }, async () => ({
        content: [{ type: 'text', text: 'hello' }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    })();
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
});
after(async () => {
  await new Promise((resolve) => upstream?.close(resolve));
  await receiver?.close();
});

/** Calls `hello` through a proxy in front of the upstream; what the upstream saw and the spans. */
async function callThroughProxy(service: string, env: Record<string, string> = {}) {
  const proxy = await spawnHttpServer({
    MCP_PLUGINS: 'proxy',
    MCP_PROXY_URL: upstreamUrl,
    MCP_OTEL_ENDPOINT: receiver.url,
    MCP_OTEL_SERVICE_NAME: service,
    OTEL_BSP_SCHEDULE_DELAY: '20',
    ...env,
  });
  const client = new Client({ name: 'http-tracing', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
    const before = calls.length;
    const r = await client.callTool({ name: 'hello', arguments: {} });
    assert.notEqual(r.isError, true, JSON.stringify(r));
    const seen = calls[before];
    assert.ok(seen, 'the upstream got the call');
    const mine = (s: ReceivedSpan) => s.resource['service.name'] === service;
    const [upstreamSpan] = await receiver.waitForSpans(
      (s) => mine(s) && s.kind === 'CLIENT' && s.name === 'tools/call hello',
      10_000,
    );
    assert.ok(upstreamSpan);
    return { seen, upstreamSpan, mine };
  } finally {
    await client.close();
    await proxy.stop();
  }
}

describe('an HTTP upstream gets the trace context in _meta and in one traceparent header', () => {
  test("with the undici instrumentation: the header is its HTTP span's, a child of the proxy's span", async () => {
    const { seen, upstreamSpan, mine } = await callThroughProxy(`proxy-http-undici-${process.pid}`);
    assert.equal(seen.meta.traceparent, `00-${upstreamSpan.traceId}-${upstreamSpan.spanId}-01`);
    assert.equal(seen.traceparent?.length, 1, JSON.stringify(seen.traceparent));
    const [, trace, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(seen.traceparent?.[0] ?? '') ?? [];
    assert.equal(trace, upstreamSpan.traceId);
    const [http] = await receiver.waitForSpans((s) => mine(s) && s.spanId === spanId, 10_000);
    assert.equal(http?.kind, 'CLIENT');
    assert.equal(http?.parentSpanId, upstreamSpan.spanId, "the HTTP span is the proxy span's child");
    assert.equal(upstreamSpan.attributes['network.transport'], 'tcp');
    assert.equal(upstreamSpan.attributes['server.address'], '127.0.0.1');
    assert.equal(typeof upstreamSpan.attributes['server.port'], 'number');
  });

  test("without it: the header is the proxy's own, the same as in _meta", async () => {
    const { seen, upstreamSpan } = await callThroughProxy(`proxy-http-plain-${process.pid}`, {
      OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'undici',
    });
    const expected = `00-${upstreamSpan.traceId}-${upstreamSpan.spanId}-01`;
    assert.equal(seen.meta.traceparent, expected);
    assert.deepEqual(seen.traceparent, [expected]);
  });
});
