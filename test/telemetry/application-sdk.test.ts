/**
 * The application's path, end to end: the real CLI started with the Node SDK preloaded
 * (`--import ./examples/tracing.ts`, http and undici instrumentations on), exporting to a real
 * OTLP receiver. One trace runs from the HTTP server span through the MCP span to the tool's
 * own span and its fetch; the traceparent the upstream server receives names that trace; the
 * server starts no pipeline of its own.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { REPO_ROOT, type SpawnedHttpServer, spawnHttpServer } from '../helpers/spawn-server.ts';

const PRELOAD = pathToFileURL(path.join(REPO_ROOT, 'examples', 'tracing.ts')).href;
const PLUGIN = path.join(REPO_ROOT, 'test', 'telemetry', 'fixtures', 'fetch-plugin.ts');
const V2026 = '2026-07-28';

let receiver: OtlpReceiver;
let server: SpawnedHttpServer;
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
  server = await spawnHttpServer({
    NODE_OPTIONS: `--import=${PRELOAD}`,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: 'app-sdk-e2e',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_LOGS_EXPORTER: 'none',
    MCP_PLUGINS: PLUGIN,
    MCP_LOG_LEVEL: 'info',
    MCP_LOG_FORMAT: 'json',
  });
});
after(async () => {
  await server?.stop();
  await receiver?.close();
  await new Promise((resolve) => upstream.close(resolve));
});

describe('the Node SDK preloaded by the application', () => {
  test('one trace: HTTP server span → MCP span → the tool’s span → its fetch, and the upstream gets the traceparent', async () => {
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
    assert.equal(await server.stop(), 0);

    const spans = await receiver.waitForSpans((s) => s.resource['service.name'] === 'app-sdk-e2e', 10_000, 4);
    const mcp = spans.find((s) => s.name === 'tools/call fetch_url');
    assert.ok(mcp, JSON.stringify(spans.map((s) => [s.name, s.scope])));
    assert.equal(mcp.scope, 'mcp-toolkit');
    const httpServer = spans.find((s) => s.spanId === mcp.parentSpanId);
    assert.equal(httpServer?.kind, 'SERVER');
    assert.equal(httpServer?.scope, '@opentelemetry/instrumentation-http');
    const own = spans.find((s) => s.name === 'fetch upstream');
    assert.equal(own?.parentSpanId, mcp.spanId);
    assert.equal(own?.traceId, mcp.traceId);
    const client = spans.find((s) => s.kind === 'CLIENT' && s.parentSpanId === own?.spanId);
    assert.equal(client?.scope, '@opentelemetry/instrumentation-undici');
    for (const s of [httpServer, own, client]) assert.equal(s?.traceId, mcp.traceId);

    const traceparent = upstreamHeaders.at(-1)?.traceparent;
    assert.equal(typeof traceparent, 'string');
    const [, traceId, parentId] = String(traceparent).split('-');
    assert.equal(traceId, mcp.traceId, 'the upstream call names the MCP trace');
    assert.equal(parentId, client?.spanId);

    // One pipeline: every span carries the application's resource; none came from a second SDK.
    assert.ok(receiver.spans.every((s) => s.resource['service.name'] === 'app-sdk-e2e'));
    assert.match(server.stderr(), /using the OpenTelemetry TracerProvider the application registered/);
    const lines = server
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const fetching = lines.find((l) => l.msg === 'fetching');
    assert.equal(fetching?.trace_id, mcp.traceId);
    assert.equal(fetching?.span_id, mcp.spanId);
  });
});
