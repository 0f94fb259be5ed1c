/**
 * The OpenTelemetry SDK is installed once: the packages we import directly (the batch span
 * processor, resources, the meter's views, the OTLP export delegate and serialisers) resolve to the very copies `@opentelemetry/sdk-node`
 * uses, so the pipeline is built from one SDK, not two releases side by side. A range in
 * package.json that the lock file resolves past the Node SDK's exact pins brings in a second
 * copy (and ships it in the image); this fails then.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const SHARED = [
  '@opentelemetry/core',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace',
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/exporter-trace-otlp-proto',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/exporter-metrics-otlp-proto',
  '@opentelemetry/exporter-metrics-otlp-http',
  '@opentelemetry/otlp-exporter-base',
  '@opentelemetry/otlp-transformer',
];

test('the SDK packages we import are the ones @opentelemetry/sdk-node loads', () => {
  const ours = createRequire(import.meta.url);
  const nodeSdk = createRequire(ours.resolve('@opentelemetry/sdk-node'));
  for (const name of SHARED) {
    assert.equal(ours.resolve(name), nodeSdk.resolve(name), `${name}: two copies are installed`);
  }
});
