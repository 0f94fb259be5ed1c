/**
 * The Fastify plugin inside an application that runs the OpenTelemetry Node SDK (preloaded
 * with `--import ./examples/tracing.ts`, the http instrumentation on), exporting to a real
 * OTLP receiver: one trace runs from the application's HTTP server span to our MCP span
 * (`tools/call stamp`) to the tool's own span, and a plugin's route span is a child of the
 * application's HTTP server span too. The toolkit uses the application's TracerProvider and
 * starts no pipeline of its own; `app.close()` flushes the spans.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { REPO_ROOT, type SpawnedProcess, spawnNode } from '../helpers/spawn-server.ts';

const PRELOAD = pathToFileURL(path.join(REPO_ROOT, 'examples', 'tracing.ts')).href;
const APP = path.join(REPO_ROOT, 'test', 'telemetry', 'fixtures', 'fastify-app.ts');
const V2026 = '2026-07-28';
const SERVICE = 'fastify-plugin-sdk';

let receiver: OtlpReceiver;
let app: SpawnedProcess;
let base: string;

before(async () => {
  receiver = await startOtlpReceiver();
  app = spawnNode([APP], {
    NODE_OPTIONS: `--import=${PRELOAD}`,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: SERVICE,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_LOGS_EXPORTER: 'none',
    OTEL_METRICS_EXPORTER: 'none',
  });
  let stdout = '';
  app.child.stdout.setEncoding('utf8');
  base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "listening" line; stderr:\n${app.stderr()}`)),
      30_000,
    );
    app.child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      const m = /listening on (http:\/\/\S+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    app.child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the app exited (code ${code}); stderr:\n${app.stderr()}`));
    });
  });
});
after(async () => {
  await app?.stop();
  await receiver?.close();
});

describe('the Fastify plugin under the application’s Node SDK', () => {
  test('one trace: the app’s HTTP server span → tools/call stamp → the tool’s span; a route span under the app’s', async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': V2026,
        'mcp-method': 'tools/call',
        'mcp-name': 'stamp',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'stamp',
          arguments: { text: 'hi' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': V2026,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const body = (await res.json()) as { result?: { content?: { text?: string }[] } };
    assert.equal(body.result?.content?.[0]?.text, 'stamped: hi', JSON.stringify(body));
    const route = await fetch(`${base}/stamps/count`);
    assert.deepEqual(await route.json(), { count: 0 });
    assert.equal(await app.stop(), 0, app.stderr());

    const spans = await receiver.waitForSpans((s) => s.resource['service.name'] === SERVICE, 10_000, 5);
    const names = JSON.stringify(spans.map((s) => [s.name, s.scope, s.kind]));
    const mcp = spans.find((s) => s.name === 'tools/call stamp');
    assert.ok(mcp, names);
    assert.equal(mcp.scope, 'mcp-toolkit');
    assert.equal(mcp.kind, 'SERVER');
    const httpServer = spans.find((s) => s.spanId === mcp.parentSpanId);
    assert.equal(httpServer?.kind, 'SERVER', names);
    assert.equal(httpServer?.scope, '@opentelemetry/instrumentation-http');
    assert.equal(httpServer?.traceId, mcp.traceId);
    const own = spans.find((s) => s.name === 'stamp work');
    assert.equal(own?.parentSpanId, mcp.spanId, names);
    assert.equal(own?.traceId, mcp.traceId);

    const routeSpan = spans.find((s) => s.name === 'GET /stamps/count');
    assert.ok(routeSpan, names);
    assert.equal(routeSpan.attributes['http.route'], '/stamps/count');
    const routeParent = spans.find((s) => s.spanId === routeSpan.parentSpanId);
    assert.equal(routeParent?.scope, '@opentelemetry/instrumentation-http', names);

    // One pipeline: every span carries the application's resource.
    assert.ok(receiver.spans.every((s) => s.resource['service.name'] === SERVICE));
  });
});
