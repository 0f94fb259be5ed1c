/**
 * The SDK the server starts itself (no preload, `OTEL_EXPORTER_OTLP_ENDPOINT` set) instruments
 * outgoing calls: a tool's `fetch` exports an undici CLIENT span under the tool's span, and the
 * upstream receives that trace's `traceparent`. `OTEL_NODE_DISABLED_INSTRUMENTATIONS=undici`
 * turns that instrumentation off, as the Node SDK documents. The real CLI, a real OTLP receiver
 * and a loopback upstream.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { REPO_ROOT, spawnHttpServer } from '../helpers/spawn-server.ts';

const PLUGIN = path.join(REPO_ROOT, 'test', 'telemetry', 'fixtures', 'fetch-plugin.ts');
const V2026 = '2026-07-28';

let receiver: OtlpReceiver;
let upstreamUrl: string;
const upstreamHeaders: IncomingHttpHeaders[] = [];
const upstream = createServer((req, res) => {
  upstreamHeaders.push(req.headers);
  res.writeHead(200, { 'content-type': 'text/plain' }).end('upstream says hi');
});

before(async () => {
  receiver = await startOtlpReceiver();
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/data`;
});
after(async () => {
  await receiver?.close();
  await new Promise((resolve) => upstream.close(resolve));
});

/** Starts the CLI with `env`, calls fetch_url once, stops it; the spans of `service`. */
async function callOnce(service: string, env: Record<string, string> = {}) {
  const server = await spawnHttpServer({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: service,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    MCP_PLUGINS: PLUGIN,
    MCP_LOG_FORMAT: 'json',
    ...env,
  });
  try {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': V2026,
        'mcp-method': 'tools/call',
        'mcp-name': 'fetch_url',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'fetch_url',
          arguments: { url: upstreamUrl },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': V2026,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const body = (await res.json()) as { result?: { content?: { text?: string }[] } };
    assert.equal(body.result?.content?.[0]?.text, 'upstream says hi', JSON.stringify(body));
  } finally {
    assert.equal(await server.stop(), 0, server.stderr());
  }
  return receiver.waitForSpans((s) => s.resource['service.name'] === service, 10_000, 2);
}

describe('the SDK the server starts instruments outgoing calls', () => {
  test('a tool’s fetch: an undici CLIENT span under the tool’s span, and the upstream gets its traceparent', async () => {
    const spans = await callOnce('builtin-http');
    const mcp = spans.find((s) => s.name === 'tools/call fetch_url');
    assert.ok(mcp, JSON.stringify(spans.map((s) => [s.name, s.scope])));
    const own = spans.find((s) => s.name === 'fetch upstream');
    assert.equal(own?.parentSpanId, mcp.spanId);
    let client = spans.find((s) => s.kind === 'CLIENT' && s.parentSpanId === own?.spanId);
    if (!client) {
      const more = await receiver.waitForSpans(
        (s) => s.resource['service.name'] === 'builtin-http' && s.kind === 'CLIENT',
        10_000,
        1,
      );
      client = more.find((s) => s.parentSpanId === own?.spanId);
    }
    assert.equal(client?.scope, '@opentelemetry/instrumentation-undici');
    assert.equal(client?.traceId, mcp.traceId);
    const [, traceId, parentId] = String(upstreamHeaders.at(-1)?.traceparent).split('-');
    assert.equal(traceId, mcp.traceId, 'the upstream call names the MCP trace');
    assert.equal(parentId, client?.spanId);
  });

  test('OTEL_NODE_DISABLED_INSTRUMENTATIONS=undici: no client span and no traceparent', async () => {
    const before = upstreamHeaders.length;
    const spans = await callOnce('builtin-no-undici', { OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'undici' });
    assert.ok(spans.some((s) => s.name === 'tools/call fetch_url'));
    assert.equal(upstreamHeaders.length, before + 1);
    assert.equal(upstreamHeaders.at(-1)?.traceparent, undefined);
    assert.ok(
      !receiver.spans.some(
        (s) =>
          s.resource['service.name'] === 'builtin-no-undici' &&
          s.scope === '@opentelemetry/instrumentation-undici',
      ),
    );
  });
});
