/**
 * The standard OTEL_* variables and their MCP_OTEL_* aliases, resolved into one tracing
 * configuration: each variable read, the precedence rules, and a precise error for a bad value.
 * (test/telemetry/otel-env-export.test.ts checks that the values reach the wire.)
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InternalCode, ToolkitError } from '../../src/base/errors.ts';
import { parseSettings } from '../../src/config/settings.ts';
import { parseTracingConfig } from '../../src/telemetry/otel-settings.ts';

const resolve = (env: Record<string, string>) => parseTracingConfig(env, parseSettings(env), '9.9.9');

describe('parseTracingConfig', () => {
  test('nothing set: no exporter, the server name as service.name, parent-based always-on, W3C propagators', () => {
    const c = resolve({});
    assert.equal(c.traces, undefined);
    assert.equal(c.metrics, undefined);
    assert.equal(c.sdkDisabled, false);
    assert.equal(c.serviceName, 'mcp-toolkit');
    assert.equal(c.serviceVersion, '9.9.9');
    assert.equal(c.sampler, 'parentbased_always_on');
    assert.deepEqual(c.propagators, ['tracecontext', 'baggage']);
    assert.equal(c.spanDelayMs, 5000);
    assert.equal(c.metricIntervalMs, 60_000);
  });

  test('OTEL_EXPORTER_OTLP_ENDPOINT is a base URL: /v1/traces and /v1/metrics are appended; http/protobuf by default', () => {
    const c = resolve({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' });
    assert.deepEqual(c.traces, {
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      compression: 'none',
      timeoutMs: 10_000,
    });
    assert.equal(c.metrics?.url, 'http://collector:4318/v1/metrics');
  });

  test('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / _METRICS_ENDPOINT are used as they are and win over the base', () => {
    const c = resolve({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/custom/path',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://metrics:4318/m',
    });
    assert.equal(c.traces?.url, 'http://traces:9999/custom/path');
    assert.equal(c.metrics?.url, 'https://metrics:4318/m');
    assert.equal(resolve({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:1/x' }).metrics, undefined);
  });

  test('MCP_OTEL_ENDPOINT wins over every OTEL_EXPORTER_OTLP_*_ENDPOINT', () => {
    const c = resolve({
      MCP_OTEL_ENDPOINT: 'http://mine:4318',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/v1/traces',
    });
    assert.equal(c.traces?.url, 'http://mine:4318/v1/traces');
    assert.equal(c.metrics?.url, 'http://mine:4318/v1/metrics');
  });

  test('headers, protocol, compression and timeout: the signal-specific variable wins over the generic one', () => {
    const c = resolve({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=generic,x-team=a%20b',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'api-key=traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_EXPORTER_OTLP_METRICS_COMPRESSION: 'none',
      OTEL_EXPORTER_OTLP_TIMEOUT: '3000',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '1500',
      OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'm=1',
      OTEL_EXPORTER_OTLP_METRICS_TIMEOUT: '2500',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'gzip',
    });
    assert.deepEqual(c.traces?.headers, { 'api-key': 'traces', 'x-team': 'a b' });
    assert.deepEqual(c.metrics?.headers, { 'api-key': 'generic', 'x-team': 'a b', m: '1' });
    assert.equal(c.traces?.protocol, 'http/json');
    assert.equal(c.metrics?.protocol, 'http/protobuf');
    assert.equal(c.traces?.compression, 'gzip');
    assert.equal(c.metrics?.compression, 'none');
    assert.equal(c.traces?.timeoutMs, 1500);
    assert.equal(c.metrics?.timeoutMs, 2500);
  });

  test('service name: MCP_OTEL_SERVICE_NAME, then OTEL_SERVICE_NAME, then service.name of OTEL_RESOURCE_ATTRIBUTES', () => {
    const attrs = 'service.name=from-attrs,deployment.environment.name=prod,team=a%2Cb';
    assert.equal(resolve({ OTEL_RESOURCE_ATTRIBUTES: attrs }).serviceName, 'from-attrs');
    assert.equal(resolve({ OTEL_RESOURCE_ATTRIBUTES: attrs, OTEL_SERVICE_NAME: 'otel' }).serviceName, 'otel');
    assert.equal(
      resolve({ OTEL_RESOURCE_ATTRIBUTES: attrs, OTEL_SERVICE_NAME: 'otel', MCP_OTEL_SERVICE_NAME: 'mcp' })
        .serviceName,
      'mcp',
    );
    assert.equal(resolve({ MCP_SERVER_NAME: 'files' }).serviceName, 'files');
    assert.deepEqual(resolve({ OTEL_RESOURCE_ATTRIBUTES: attrs }).resourceAttributes, {
      'service.name': 'from-attrs',
      'deployment.environment.name': 'prod',
      team: 'a,b',
    });
  });

  test('OTEL_TRACES_SAMPLER and _ARG; MCP_OTEL_SAMPLE_RATIO wins as parentbased_traceidratio', () => {
    assert.equal(resolve({ OTEL_TRACES_SAMPLER: 'always_off' }).sampler, 'always_off');
    const ratio = resolve({ OTEL_TRACES_SAMPLER: 'TraceIdRatio', OTEL_TRACES_SAMPLER_ARG: '0.25' });
    assert.equal(ratio.sampler, 'traceidratio');
    assert.equal(ratio.samplerRatio, 0.25);
    assert.equal(resolve({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' }).samplerRatio, 1);
    const alias = resolve({ OTEL_TRACES_SAMPLER: 'always_on', MCP_OTEL_SAMPLE_RATIO: '0.1' });
    assert.equal(alias.sampler, 'parentbased_traceidratio');
    assert.equal(alias.samplerRatio, 0.1);
  });

  test('OTEL_PROPAGATORS: a list, `none` for no propagation', () => {
    assert.deepEqual(resolve({ OTEL_PROPAGATORS: 'b3, tracecontext,b3' }).propagators, [
      'b3',
      'tracecontext',
    ]);
    assert.deepEqual(resolve({ OTEL_PROPAGATORS: 'b3multi' }).propagators, ['b3multi']);
    assert.deepEqual(resolve({ OTEL_PROPAGATORS: 'none' }).propagators, []);
  });

  test('OTEL_SDK_DISABLED, OTEL_BSP_*, OTEL_METRIC_EXPORT_INTERVAL and the temporality preference', () => {
    assert.equal(resolve({ OTEL_SDK_DISABLED: 'TRUE' }).sdkDisabled, true);
    assert.equal(resolve({ OTEL_SDK_DISABLED: 'false' }).sdkDisabled, false);
    const c = resolve({
      OTEL_BSP_SCHEDULE_DELAY: '250',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1024',
      OTEL_BSP_MAX_QUEUE_SIZE: '4096',
      OTEL_METRIC_EXPORT_INTERVAL: '1000',
      OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'Delta',
    });
    assert.equal(c.spanDelayMs, 250);
    assert.equal(c.maxExportBatchSize, 1024);
    assert.equal(c.maxQueueSize, 4096);
    assert.equal(c.metricIntervalMs, 1000);
    assert.equal(c.temporality, 'delta');
  });

  test('a bad value stops start-up with a message naming the variable and what it accepts', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
        /^OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318" is invalid: expected an http\(s\) URL/,
      ],
      [
        { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
        /^OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is invalid: expected http\/protobuf or http\/json/,
      ],
      [
        { OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'zstd' },
        /^OTEL_EXPORTER_OTLP_TRACES_COMPRESSION=.*expected gzip or none/,
      ],
      [{ OTEL_EXPORTER_OTLP_TIMEOUT: '10s' }, /^OTEL_EXPORTER_OTLP_TIMEOUT=.*milliseconds/],
      [{ OTEL_EXPORTER_OTLP_HEADERS: 'novalue' }, /^OTEL_EXPORTER_OTLP_HEADERS=.*key=value/],
      [{ OTEL_RESOURCE_ATTRIBUTES: 'a=%zz' }, /^OTEL_RESOURCE_ATTRIBUTES=.*percent-encoding/],
      [{ OTEL_TRACES_SAMPLER: 'sometimes' }, /^OTEL_TRACES_SAMPLER=.*expected one of always_on/],
      [{ OTEL_TRACES_SAMPLER_ARG: '2' }, /^OTEL_TRACES_SAMPLER_ARG=.*from 0 to 1/],
      [{ OTEL_PROPAGATORS: 'xray' }, /^OTEL_PROPAGATORS=.*unknown propagator "xray"/],
      [{ OTEL_BSP_MAX_QUEUE_SIZE: '0' }, /^OTEL_BSP_MAX_QUEUE_SIZE=.*whole number from 1/],
    ];
    for (const [env, message] of cases) {
      assert.throws(
        () => resolve(env),
        (err: unknown) =>
          err instanceof ToolkitError &&
          err.code === InternalCode.InvalidSetting &&
          message.test(err.message),
        JSON.stringify(env),
      );
    }
  });
});
