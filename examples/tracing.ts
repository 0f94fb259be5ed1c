/**
 * The application's own OpenTelemetry, preloaded before the server starts: the Node SDK with
 * the http and undici (fetch) instrumentations, configured by the standard OTEL_* variables.
 * The server finds this TracerProvider registered and uses it: its MCP spans are children of
 * the HTTP server span, a tool's own spans and its outgoing fetch calls are children of the
 * MCP span, and everything leaves through this one pipeline.
 *
 *   OTEL_SERVICE_NAME=my-mcp OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 \
 *     node --import ./examples/tracing.ts bin/mcp-toolkit.js run --transport http
 *
 * (`--import` runs this file first; `NODE_OPTIONS="--import ./examples/tracing.ts"` does the
 * same for a command you do not start yourself, and in the container image, which carries this
 * file. Both instrumentations are dependencies of the server.)
 */
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';

const sdk = new NodeSDK({
  // Spans and metrics go where OTEL_EXPORTER_OTLP_ENDPOINT says (OTLP over HTTP, protobuf).
  instrumentations: [new HttpInstrumentation(), new UndiciInstrumentation()],
});
// The server flushes this provider's spans when it stops (SIGTERM, SIGINT, end of stdin).
sdk.start();
