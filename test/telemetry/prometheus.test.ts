/**
 * MCP_METRICS_PORT: the server's OpenTelemetry metrics at `/metrics` on a port of its own,
 * through OpenTelemetry's Prometheus exporter, read here with a Prometheus text-format parser
 * from npm (`parse-prometheus-text-format`, which throws on a line that is not the format). A
 * real HTTP server on loopback, the official client, a real OTLP receiver beside it: the
 * duration histogram counts the calls with the conventions' buckets, the gauges follow the
 * requests running, the sessions held and the streams open, and OTLP carries the same
 * instruments. The port answers only GET/HEAD on /metrics; a port in use stops start-up.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { createServer, type RunningServer } from '../../src/assembly/serve.ts';
import { InternalCode } from '../../src/base/errors.ts';
import { definePlugin, defineTool } from '../../src/index.ts';
import { DURATION_BUCKETS_S, DURATION_DESCRIPTION } from '../../src/telemetry/semconv.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { type PrometheusFamily, parsePrometheusText } from '../helpers/prometheus-text.ts';
import { spawnCli, spawnHttpCli } from '../helpers/spawn-server.ts';
import { until } from '../helpers/until.ts';

type Family = PrometheusFamily;

let release: () => void = () => {};
let entered: () => void = () => {};
const plugin = definePlugin({
  name: 'metered',
  register(app) {
    app.add(
      defineTool({ name: 'quick', description: 'Answers at once', input: z.object({}) }, async () => ({
        content: [{ type: 'text', text: 'quick' }],
      })),
      defineTool(
        { name: 'hold', description: 'Answers once the test lets it', input: z.object({}) },
        async () => {
          entered();
          await new Promise<void>((resolve) => {
            release = resolve;
          });
          return { content: [{ type: 'text', text: 'held' }] };
        },
      ),
    );
  },
});

let receiver: OtlpReceiver;
let running: RunningServer;
let metricsUrl: string;

before(async () => {
  receiver = await startOtlpReceiver();
  running = await createServer({
    plugins: [plugin],
    transport: 'http',
    settings: {
      MCP_HTTP_HOST: '127.0.0.1',
      MCP_HTTP_PORT: 0,
      MCP_METRICS_PORT: 0,
      MCP_LOG_LEVEL: 'silent',
      MCP_OTEL_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: `prometheus-${process.pid}`,
      OTEL_METRIC_EXPORT_INTERVAL: '200',
    },
  });
  assert.ok(running.server.telemetry.metricsUrl, 'the server says where /metrics is');
  metricsUrl = running.server.telemetry.metricsUrl;
});
after(async () => {
  release();
  await running?.close();
  await receiver?.close();
});

async function scrape(): Promise<Map<string, Family>> {
  const response = await fetch(metricsUrl);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
  const families = parsePrometheusText(await response.text());
  return new Map(families.map((f) => [f.name, f]));
}

const gauge = (families: Map<string, Family>, name: string) => {
  const family = families.get(name);
  assert.equal(family?.type, 'GAUGE', `${name} is a gauge: ${JSON.stringify(family)}`);
  return Number(family.metrics[0]?.value);
};

/** One stateless 2026-wire tools/call, as any client sends it. */
async function call2026(tool: string): Promise<void> {
  const response = await fetch(running.url!, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: tool,
        arguments: {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  assert.equal(response.status, 200);
  await response.text();
}

describe('/metrics', { concurrency: false }, () => {
  test('the MCP duration histogram: every call counted, in the conventions’ buckets; the gauges at rest', async () => {
    for (let i = 0; i < 3; i++) await call2026('quick');
    const families = await scrape();
    const duration = families.get('mcp_server_operation_duration');
    assert.equal(duration?.type, 'HISTOGRAM', JSON.stringify([...families.keys()]));
    assert.equal(duration.help, DURATION_DESCRIPTION);
    // One kind of request so far: one series.
    const buckets = duration.metrics[0]?.buckets ?? {};
    assert.deepEqual(Object.keys(buckets).sort(), [...DURATION_BUCKETS_S.map(String), '+Inf'].sort());
    assert.equal(buckets['+Inf'], '3');
    assert.equal(gauge(families, 'mcp_server_active_requests'), 0);
    assert.equal(gauge(families, 'mcp_server_active_sessions'), 0);
    assert.equal(gauge(families, 'mcp_server_open_streams'), 0);
  });

  test('the gauges follow a call in flight, a 2025-wire session and its GET stream, and fall back', async () => {
    const client = new Client({ name: 'prometheus-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(running.url!));
    await client.connect(transport);
    assert.ok(transport.sessionId, 'a 2025-wire session');
    // The session's standalone stream: the client opens it once initialised (one per session:
    // a second GET would be refused), and holds it open, listening for notifications.
    await until(async () => gauge(await scrape(), 'mcp_server_open_streams') >= 1, {
      timeoutMs: 30_000,
      intervalMs: 50,
      message: 'the client’s GET stream never opened',
    });
    const arrived = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const held = client.callTool({ name: 'hold', arguments: {} });
    await arrived;
    const busy = await scrape();
    assert.equal(gauge(busy, 'mcp_server_active_requests'), 1);
    assert.equal(gauge(busy, 'mcp_server_active_sessions'), 1);
    assert.ok(gauge(busy, 'mcp_server_open_streams') >= 1, 'the GET stream (and the call’s reply stream)');

    release();
    await held;
    await transport.terminateSession();
    await client.close();
    const rest = await until(
      async () => {
        const families = await scrape();
        return ['mcp_server_active_requests', 'mcp_server_active_sessions', 'mcp_server_open_streams'].every(
          (name) => gauge(families, name) === 0,
        )
          ? families
          : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, message: 'the gauges never fell back to 0' },
    );
    assert.ok(rest.has('mcp_server_operation_duration'));
  });

  test('OTLP carries the same instruments as /metrics', async () => {
    const names = (families: Map<string, Family>) =>
      [...families.keys()].filter((n) => n !== 'target_info').sort();
    const scraped = names(await scrape());
    const service = `prometheus-${process.pid}`;
    const exported = await until(
      () => {
        const seen = new Set(
          receiver.metrics
            .filter((m) => m.resource['service.name'] === service)
            .map((m) => m.name.replaceAll('.', '_')),
        );
        return scraped.every((n) => seen.has(n)) ? [...seen].sort() : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, message: 'OTLP never carried every scraped instrument' },
    );
    assert.deepEqual(exported, scraped);
  });

  test('only GET and HEAD on /metrics: a query is ignored, another path is 404, another method 405', async () => {
    const withQuery = await fetch(`${metricsUrl}?format=prometheus`);
    assert.equal(withQuery.status, 200);
    await withQuery.text();
    const head = await fetch(metricsUrl, { method: 'HEAD' });
    assert.equal(head.status, 200);
    const other = await fetch(new URL('/mcp', metricsUrl));
    assert.equal(other.status, 404);
    await other.text();
    const post = await fetch(metricsUrl, { method: 'POST', body: 'x' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    await post.text();
    // The MCP endpoint is not served on the metrics port, nor /metrics on the MCP port.
    const onMcpPort = await fetch(new URL('/metrics', running.url));
    assert.notEqual(onMcpPort.status, 200);
    await onMcpPort.text();
  });
});

// Processes of their own: this one has registered its OpenTelemetry SDK globally.
describe('start-up', () => {
  test('a metrics port in use stops start-up (exit 2), naming MCP_METRICS_PORT', async () => {
    const taken = createHttpServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const proc = spawnCli(['run', '--transport', 'http', '--host', '127.0.0.1', '--port', '0'], {
        MCP_METRICS_PORT: String(port),
        MCP_LOG_FORMAT: 'json',
        MCP_PLUGINS: 'conformance',
      });
      assert.equal(await proc.exited, 2, proc.stderr());
      const line = proc
        .stderr()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { code?: string; msg: string })
        .find((l) => l.code !== undefined);
      assert.equal(line?.code, InternalCode.InvalidSetting);
      assert.match(
        line.msg,
        new RegExp(`MCP_METRICS_PORT=${port} on 127\\.0\\.0\\.1 cannot be opened \\(EADDRINUSE\\)`),
      );
      assert.doesNotMatch(proc.stderr(), /listening/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  test('with OTEL_SDK_DISABLED=true it serves MCP, opens no metrics port, and warns that MCP_METRICS_PORT is not served', async (t) => {
    const server = await spawnHttpCli(['run', '--transport', 'http', '--host', '127.0.0.1', '--port', '0'], {
      MCP_METRICS_PORT: '0',
      OTEL_SDK_DISABLED: 'true',
      MCP_LOG_FORMAT: 'json',
      MCP_LOG_LEVEL: 'info',
      MCP_PLUGINS: 'conformance',
    });
    t.after(() => server.stop());
    assert.match(server.stderr(), /MCP_METRICS_PORT is not served: OTEL_SDK_DISABLED=true/);
    assert.doesNotMatch(server.stderr(), /metrics: Prometheus text format/);
  });
});
