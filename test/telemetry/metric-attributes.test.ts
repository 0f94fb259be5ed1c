/**
 * The attribute sets the request metrics are recorded with: the semantic conventions' required
 * and conditionally required attributes (the recommended ones with MCP_OTEL_METRIC_ATTRIBUTES),
 * one frozen object per kind of request and outcome, its keys in sorted order, so that the SDK's per-record hash of the set
 * (it sorts the keys, then serialises the pairs) sorts nothing out of order. Checked on what
 * the duration histogram and the tool-error counter are handed, through a meter provider that
 * notes every record.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { type Attributes, type Meter, metrics } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { ErrorCode } from '../../src/base/errors.ts';
import { RequestTelemetry } from '../../src/telemetry/request-telemetry.ts';

const recorded: { name: string; attributes: Attributes }[] = [];
const real = new MeterProvider();
metrics.setGlobalMeterProvider({
  getMeter(name, version): Meter {
    const meter = real.getMeter(name, version);
    return new Proxy(meter, {
      get(target, key) {
        const value = Reflect.get(target, key);
        if (key !== 'createHistogram' && key !== 'createCounter') return value;
        return (instrument: string) => {
          const note = (_value: number, attributes: Attributes) => {
            recorded.push({ name: instrument, attributes });
          };
          return { record: note, add: note };
        };
      },
    });
  },
});
after(async () => {
  await real.shutdown();
  metrics.disable();
});

const sortedKeys = (attributes: Attributes) => [...Object.keys(attributes)].sort();
const request = {
  method: 'tools/call',
  targetName: 'add',
  targetKnown: true,
  protocolVersion: '2026-07-28',
  transport: 'http',
  httpVersion: '1.1',
} as const;

test('each request kind and outcome is recorded with one frozen set, its keys in sorted order', () => {
  const telemetry = new RequestTelemetry('1.2.3', undefined);
  telemetry.startRequestSpan(request).end({});
  telemetry.startRequestSpan(request).end({});
  telemetry.startRequestSpan(request).end({ code: ErrorCode.InvalidParams, message: 'bad' });
  telemetry.startRequestSpan(request).end({ isError: true });
  telemetry.sessionStarted({ id: 's', protocolVersion: '2025-11-25', transport: 'http', httpVersion: '1.1' });
  telemetry.sessionEnded('s');

  const durations = recorded.filter((r) => r.name === 'mcp.server.operation.duration');
  assert.equal(durations.length, 4);
  assert.equal(durations[0]?.attributes, durations[1]?.attributes, 'the same object for the same kind');
  for (const { name, attributes } of recorded) {
    assert.ok(Object.isFrozen(attributes), `${name}: frozen`);
    assert.deepEqual(Object.keys(attributes), sortedKeys(attributes), `${name}: keys in order`);
  }
  // By default the conventions' required and conditionally required attributes, no more.
  assert.deepEqual(durations[0]?.attributes, { 'gen_ai.tool.name': 'add', 'mcp.method.name': 'tools/call' });
  assert.deepEqual(durations[2]?.attributes, {
    'error.type': String(ErrorCode.InvalidParams),
    'gen_ai.tool.name': 'add',
    'mcp.method.name': 'tools/call',
    'rpc.response.status_code': String(ErrorCode.InvalidParams),
  });
  assert.ok(recorded.some((r) => r.name === 'mcp.server.tool_errors'));
  assert.ok(recorded.some((r) => r.name === 'mcp.server.session.duration'));
});

test('MCP_OTEL_METRIC_ATTRIBUTES=recommended: the recommended attributes too, in the same sorted frozen sets', () => {
  recorded.length = 0;
  const telemetry = new RequestTelemetry('1.2.3', undefined, { metricAttributes: 'recommended' });
  const prompt = { ...request, method: 'prompts/get', targetName: 'greet' } as const;
  telemetry.startRequestSpan(request).end({});
  telemetry.startRequestSpan(request).end({ code: ErrorCode.InvalidParams, message: 'bad' });
  telemetry.startRequestSpan({ ...prompt, transport: 'stdio', httpVersion: undefined }).end({});
  const durations = recorded.filter((r) => r.name === 'mcp.server.operation.duration');
  for (const { name, attributes } of recorded) {
    assert.ok(Object.isFrozen(attributes), `${name}: frozen`);
    assert.deepEqual(Object.keys(attributes), sortedKeys(attributes), `${name}: keys in order`);
  }
  assert.deepEqual(durations[1]?.attributes, {
    'error.type': String(ErrorCode.InvalidParams),
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'add',
    'mcp.method.name': 'tools/call',
    'mcp.protocol.version': '2026-07-28',
    'network.protocol.name': 'http',
    'network.protocol.version': '1.1',
    'network.transport': 'tcp',
    'rpc.response.status_code': String(ErrorCode.InvalidParams),
  });
  assert.deepEqual(durations[2]?.attributes, {
    'gen_ai.prompt.name': 'greet',
    'mcp.method.name': 'prompts/get',
    'mcp.protocol.version': '2026-07-28',
    'network.transport': 'pipe',
  });
});
