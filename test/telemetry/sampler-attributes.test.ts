/**
 * What a sampler sees of a request span. What names the request's kind (method, registered
 * tool or prompt, operation) goes into `startSpan`, the same frozen set for every request of
 * that kind; the per-request rest (session, client id and address, request id, negotiated
 * version, network protocol, client port) is built and set only once the sampler kept the
 * span. Checked with the application's own TracerProvider and a sampler that records what it
 * was shown.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { type Attributes, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type Sampler,
  SamplingDecision,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { parseTracingConfig } from '../../src/telemetry/otel-settings.ts';
import { createTelemetry } from '../../src/telemetry/tracing.ts';

const seen: Attributes[] = [];
let keep = true;
const sampler: Sampler = {
  shouldSample(_context, _traceId, _name, _kind, attributes) {
    seen.push({ ...attributes });
    return { decision: keep ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD };
  },
  toString: () => 'RecordingSampler',
};
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor({ exporter })] });
trace.setGlobalTracerProvider(provider);
after(async () => {
  await provider.shutdown();
  trace.disable();
});

const REQUEST = {
  method: 'tools/call',
  targetName: 'read_file',
  targetKnown: true,
  requestId: 7,
  sessionId: 'session-1',
  protocolVersion: '2025-06-18',
  identity: { clientId: 'alice', scopes: [] },
  transport: 'http',
  address: '127.0.0.1',
  port: 50123,
  httpVersion: '1.1',
} as const;

test('the sampler sees what identifies the request; a kept span carries every attribute', async () => {
  const config = parseTracingConfig({}, { MCP_SERVER_NAME: 'mcp-toolkit' }, '1.2.3');
  const telemetry = await createTelemetry({ config });
  assert.equal(telemetry.enabled, true, 'the application provider is used');

  keep = true;
  telemetry.startRequestSpan(REQUEST).end({});
  assert.deepEqual(seen.pop(), {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'read_file',
    'gen_ai.operation.name': 'execute_tool',
  });
  const [kept] = exporter.getFinishedSpans();
  assert.deepEqual(kept?.attributes, {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'read_file',
    'gen_ai.operation.name': 'execute_tool',
    'mcp.session.id': 'session-1',
    'mcp.client.id': 'alice',
    'client.address': '127.0.0.1',
    'jsonrpc.request.id': '7',
    'mcp.protocol.version': '2025-06-18',
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
    'network.protocol.version': '1.1',
    'client.port': 50123,
  });

  keep = false;
  exporter.reset();
  const dropped = telemetry.startRequestSpan(REQUEST);
  assert.equal(dropped.span.isRecording(), false);
  dropped.end({});
  assert.equal(seen.pop()?.['gen_ai.tool.name'], 'read_file');
  assert.deepEqual(exporter.getFinishedSpans(), []);
  await telemetry.shutdown(1000);
});
