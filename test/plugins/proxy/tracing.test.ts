/**
 * The proxy's upstream requests traced, through the real CLI over streamable HTTP with our own
 * OpenTelemetry SDK exporting to a real OTLP receiver, and a stdio upstream on the official SDK
 * (fixtures/meta-server.ts) that answers with the `_meta` it received: a `tools/call`, a
 * `prompts/get` and a `resources/read` are each one trace holding our SERVER span and, as its child, the proxy's
 * CLIENT span, whose context the upstream got as `traceparent` in `_meta`; an `isError`
 * result, a JSON-RPC error, a call our client cancels and the connection lost mid-call set the CLIENT span's status to
 * ERROR with `error.type`, and the server stays up.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../../helpers/otlp-receiver.ts';
import { REPO_ROOT, type SpawnedHttpServer, spawnHttpServer } from '../../helpers/spawn-server.ts';
import { until } from '../../helpers/until.ts';

const FIXTURE = path.join(REPO_ROOT, 'test/plugins/proxy/fixtures/meta-server.ts');
const SERVICE = `proxy-trace-${process.pid}`;
const PARENT_TRACE = randomBytes(16).toString('hex');
const PARENT_SPAN = randomBytes(8).toString('hex');

let receiver: OtlpReceiver;
let server: SpawnedHttpServer;
let client: Client;

before(async () => {
  receiver = await startOtlpReceiver();
  server = await spawnHttpServer({
    MCP_PLUGINS: 'proxy',
    MCP_PROXY_COMMAND: process.execPath,
    MCP_PROXY_ARGS: JSON.stringify([FIXTURE]),
    MCP_PROXY_RESTART_DELAY_MS: '50',
    MCP_OTEL_ENDPOINT: receiver.url,
    MCP_OTEL_SERVICE_NAME: SERVICE,
    OTEL_BSP_SCHEDULE_DELAY: '20',
  });
  client = new Client({ name: 'proxy-trace', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
});
after(async () => {
  await client?.close();
  await server?.stop();
  await receiver?.close();
});

const mine = (s: ReceivedSpan) => s.resource['service.name'] === SERVICE;
const textOf = (r: { content?: unknown }) =>
  ((r.content as { type: string; text?: string }[] | undefined) ?? []).map((c) => c.text ?? '').join('');

/** Our SERVER span and the proxy's CLIENT span of one request, by name, in `traceId`. */
async function spansOf(
  name: string,
  traceId?: string,
): Promise<{ server: ReceivedSpan; upstream: ReceivedSpan }> {
  const ofTrace = (s: ReceivedSpan) =>
    mine(s) && s.name === name && (traceId === undefined || s.traceId === traceId);
  const [server] = await receiver.waitForSpans((s) => ofTrace(s) && s.kind === 'SERVER', 10_000);
  assert.ok(server);
  const [upstream] = await receiver.waitForSpans(
    (s) => ofTrace(s) && s.kind === 'CLIENT' && s.traceId === server.traceId,
    10_000,
  );
  assert.ok(upstream);
  return { server, upstream };
}

describe('the upstream call in the caller trace', () => {
  test('tools/call: the CLIENT span is a child of our SERVER span, and the upstream got its traceparent in _meta', async () => {
    const r = await client.callTool({
      name: 'meta',
      arguments: {},
      _meta: { traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01` },
    });
    const seen = JSON.parse(textOf(r)) as Record<string, unknown>;
    const { server: ours, upstream } = await spansOf('tools/call meta', PARENT_TRACE);
    assert.equal(ours.parentSpanId, PARENT_SPAN, "our span is the caller's child");
    assert.equal(upstream.parentSpanId, ours.spanId, 'the upstream call is a child of our span');
    assert.equal(upstream.scope, 'mcp-toolkit/proxy');
    assert.equal(upstream.attributes['mcp.method.name'], 'tools/call');
    assert.equal(upstream.attributes['gen_ai.tool.name'], 'meta');
    assert.equal(upstream.attributes['gen_ai.operation.name'], 'execute_tool');
    assert.equal(upstream.attributes['network.transport'], 'pipe');
    assert.match(String(upstream.attributes['mcp.protocol.version']), /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(upstream.attributes['error.type'], undefined);
    assert.equal(upstream.status.code, 'UNSET');
    assert.equal(seen.traceparent, `00-${PARENT_TRACE}-${upstream.spanId}-01`, JSON.stringify(seen));
  });

  test('prompts/get: the same, with gen_ai.prompt.name', async () => {
    const r = await client.getPrompt({ name: 'meta' });
    const first = r.messages[0]?.content as { text?: string } | undefined;
    const seen = JSON.parse(first?.text ?? '{}') as Record<string, unknown>;
    const { server: ours, upstream } = await spansOf('prompts/get meta');
    assert.equal(upstream.parentSpanId, ours.spanId);
    assert.equal(upstream.attributes['gen_ai.prompt.name'], 'meta');
    assert.equal(seen.traceparent, `00-${ours.traceId}-${upstream.spanId}-01`, JSON.stringify(seen));
  });

  test('resources/read: the same, with mcp.resource.uri and the method alone as the name', async () => {
    const r = await client.readResource({ uri: 'meta://request' });
    const seen = JSON.parse((r.contents[0] as { text?: string } | undefined)?.text ?? '{}') as Record<
      string,
      unknown
    >;
    const { server: ours, upstream } = await spansOf('resources/read');
    assert.equal(upstream.parentSpanId, ours.spanId);
    assert.equal(upstream.attributes['mcp.resource.uri'], 'meta://request');
    assert.equal(seen.traceparent, `00-${ours.traceId}-${upstream.spanId}-01`, JSON.stringify(seen));
  });
});

describe('a failed upstream call is an error span', () => {
  test('an isError result: error.type tool_error, its text as the status', async () => {
    const r = await client.callTool({ name: 'failing', arguments: {} });
    assert.equal(r.isError, true);
    const { upstream } = await spansOf('tools/call failing');
    assert.equal(upstream.attributes['error.type'], 'tool_error');
    assert.equal(upstream.status.code, 'ERROR');
    assert.equal(upstream.status.message, 'it failed upstream');
  });

  test('a JSON-RPC error: its code as error.type and rpc.response.status_code', async () => {
    await assert.rejects(client.getPrompt({ name: 'refused' }));
    const { upstream } = await spansOf('prompts/get refused');
    assert.equal(upstream.attributes['error.type'], '-32602');
    assert.equal(upstream.attributes['rpc.response.status_code'], '-32602');
    assert.equal(upstream.status.code, 'ERROR');
    assert.match(upstream.status.message, /refused upstream/);
  });

  test('a call our client cancels: error.type cancelled', async () => {
    const abort = new AbortController();
    await assert.rejects(
      client.callTool(
        { name: 'hang', arguments: {} },
        { signal: abort.signal, onprogress: () => abort.abort() },
      ),
    );
    const { upstream } = await spansOf('tools/call hang');
    assert.equal(upstream.attributes['error.type'], 'cancelled');
    assert.equal(upstream.status.code, 'ERROR');
  });

  test('the connection lost mid-call: error.type connection_closed, and the server stays up', async () => {
    const r = await client.callTool({ name: 'exit', arguments: {} });
    assert.equal(r.isError, true);
    const { upstream } = await spansOf('tools/call exit');
    assert.equal(upstream.attributes['error.type'], 'connection_closed');
    assert.equal(upstream.status.code, 'ERROR');
    const again = await until(
      async () => {
        const next = await client.callTool({ name: 'meta', arguments: {} });
        return next.isError === true ? undefined : next;
      },
      { timeoutMs: 15_000, intervalMs: 50, message: 'a call to succeed after the restart' },
    );
    assert.match(textOf(again), /traceparent/);
  });
});
