/**
 * The anchor of scenario 4: the OpenTelemetry Node SDK as its documentation sets it up, with
 * the standard instrumentations of an HTTP server (`@opentelemetry/instrumentation-http`,
 * `@opentelemetry/instrumentation-fastify`), exporting spans and metrics over OTLP/HTTP
 * protobuf to `OTEL_EXPORTER_OTLP_ENDPOINT` with the batch span processor at the settings our
 * server uses by default (5 s delay, 512 spans per export, a queue of 2,048), every trace
 * sampled. Preloaded before the raw Fastify route: `node --import ./bench/servers/otel-preload.ts
 * bench/servers/raw-fastify.ts`.
 */
import { register } from 'node:module';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { FastifyInstrumentation } from '@opentelemetry/instrumentation-fastify';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';

// The instrumentations' ESM loader hook (import-in-the-middle), as the SDK's documentation says
// for an ES-module application: without it a module imported with `import` is not patched.
register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);

const base = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://127.0.0.1:4318';
const sdk = new NodeSDK({
  serviceName: process.env.OTEL_SERVICE_NAME ?? 'bench-raw',
  spanProcessors: [
    new BatchSpanProcessor({
      exporter: new OTLPTraceExporter({ url: `${base}/v1/traces` }),
      scheduledDelayMillis: 5000,
      maxExportBatchSize: 512,
      maxQueueSize: 2048,
    }),
  ],
  metricReaders: [
    new PeriodicExportingMetricReader({
      exporter: new OTLPMetricExporter({ url: `${base}/v1/metrics` }),
      exportIntervalMillis: 60_000,
    }),
  ],
  instrumentations: [new HttpInstrumentation(), new FastifyInstrumentation()],
});
sdk.start();
process.once('SIGTERM', () => {
  void sdk.shutdown().finally(() => process.exit(0));
});
