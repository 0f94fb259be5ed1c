import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { telemetrySettingsShape } from '../../src/telemetry/settings.ts';

const schema = z.object(telemetrySettingsShape);

describe('telemetry settings', () => {
  test('defaults: no export, no service name or ratio of our own (the OTEL_* ones apply), arguments not logged', () => {
    assert.deepEqual(schema.parse({}), { MCP_LOG_TOOL_ARGS: false, MCP_OTEL_METRIC_ATTRIBUTES: 'required' });
  });

  test('MCP_OTEL_METRIC_ATTRIBUTES is required or recommended; anything else names the choices', () => {
    assert.equal(
      schema.parse({ MCP_OTEL_METRIC_ATTRIBUTES: 'recommended' }).MCP_OTEL_METRIC_ATTRIBUTES,
      'recommended',
    );
    const result = schema.safeParse({ MCP_OTEL_METRIC_ATTRIBUTES: 'all' });
    assert.equal(result.success, false);
    assert.match(result.error?.issues[0]?.message ?? '', /required.*recommended/);
  });

  test('parses an endpoint, a service name and the tool-arguments switch', () => {
    const parsed = schema.parse({
      MCP_OTEL_ENDPOINT: ' http://127.0.0.1:4318 ',
      MCP_OTEL_SERVICE_NAME: 'files',
      MCP_LOG_TOOL_ARGS: 'on',
    });
    assert.equal(parsed.MCP_OTEL_ENDPOINT, 'http://127.0.0.1:4318');
    assert.equal(parsed.MCP_OTEL_SERVICE_NAME, 'files');
    assert.equal(parsed.MCP_LOG_TOOL_ARGS, true);
  });

  test('a sample ratio is a number from 0 to 1; blank means unset', () => {
    for (const [text, value] of [
      ['0', 0],
      ['0.25', 0.25],
      ['.5', 0.5],
      ['1', 1],
      ['1.0', 1],
      ['', undefined],
    ] as const) {
      assert.equal(schema.parse({ MCP_OTEL_SAMPLE_RATIO: text }).MCP_OTEL_SAMPLE_RATIO, value, text);
    }
    for (const bad of ['1.5', '-0.1', 'half', '10%', '2']) {
      const result = schema.safeParse({ MCP_OTEL_SAMPLE_RATIO: bad });
      assert.equal(result.success, false, bad);
      assert.match(result.error?.issues[0]?.message ?? '', /from 0 to 1/);
    }
  });

  test('a blank endpoint means unset', () => {
    assert.equal(schema.parse({ MCP_OTEL_ENDPOINT: '' }).MCP_OTEL_ENDPOINT, undefined);
  });

  test('rejects an endpoint that is not an http(s) URL, naming the variable', () => {
    for (const bad of ['collector:4318', 'ftp://127.0.0.1', 'not a url']) {
      const result = schema.safeParse({ MCP_OTEL_ENDPOINT: bad });
      assert.equal(result.success, false, bad);
      assert.equal(result.error?.issues[0]?.path[0], 'MCP_OTEL_ENDPOINT');
    }
    assert.equal(schema.safeParse({ MCP_LOG_TOOL_ARGS: 'maybe' }).success, false);
  });

  test('every setting carries a description', () => {
    for (const [name, entry] of Object.entries(telemetrySettingsShape)) {
      assert.ok((entry.description ?? '').length > 10, name);
    }
  });
});
