/** The `MCP_*` settings of this area, merged into the one settings schema (src/config/settings.ts). */
import { z } from 'zod';
import { envBool, envEnum, envString } from '../base/env.ts';

const URL_ERROR = 'expected an http(s) base URL such as http://127.0.0.1:4318';

/** An OTLP/HTTP base URL; blank means "unset" so `MCP_OTEL_ENDPOINT=` turns export off. */
const OTLP_ENDPOINT = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v))
  .pipe(z.url({ protocol: /^https?$/, error: URL_ERROR }).optional());

/** A share from 0 to 1 (`0.1` = one request in ten); blank means the default. */
const RATIO = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v))
  .pipe(
    z
      .string()
      .regex(/^(?:0(?:\.\d+)?|1(?:\.0+)?|\.\d+)$/, { error: 'expected a number from 0 to 1, such as 0.1' })
      .transform(Number)
      .optional(),
  );

/** A port, or unset (blank counts as unset): MCP_METRICS_PORT. */
const OPTIONAL_PORT = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v))
  .pipe(
    z
      .string()
      .regex(/^\d{1,5}$/, { error: 'expected a port from 0 to 65535 (0 picks a free one)' })
      .transform(Number)
      .pipe(z.number().max(65535, { error: 'expected a port from 0 to 65535 (0 picks a free one)' }))
      .optional(),
  );

export const telemetrySettingsShape = {
  MCP_LOG_TOOL_ARGS: envBool(false).describe(
    'Log tool arguments on the per-request line (values under secret-looking keys are redacted).',
  ),
  MCP_OTEL_ENDPOINT: OTLP_ENDPOINT.describe(
    'OTLP/HTTP base URL (e.g. http://127.0.0.1:4318) for traces and metrics; wins over OTEL_EXPORTER_OTLP_(TRACES_|METRICS_)ENDPOINT. Unset and no OTEL_EXPORTER_OTLP_* endpoint: nothing is exported (an application-registered OpenTelemetry SDK is still used).',
  ),
  MCP_OTEL_SERVICE_NAME: envString().describe(
    '`service.name` of exported traces and metrics; wins over OTEL_SERVICE_NAME. Default: OTEL_SERVICE_NAME, else MCP_SERVER_NAME.',
  ),
  MCP_OTEL_SAMPLE_RATIO: RATIO.describe(
    'Share of root traces recorded, from 0 to 1 (parentbased_traceidratio; a request whose parent says sampled or not follows it); wins over OTEL_TRACES_SAMPLER. Default: OTEL_TRACES_SAMPLER, else all. Metrics and log lines count every request.',
  ),
  MCP_METRICS_PORT: OPTIONAL_PORT.describe(
    "Serve the server's OpenTelemetry metrics in Prometheus' text format at `/metrics` on this port of its own (e.g. 9464, the exporter's registered port; 0 picks a free one), beside any OTLP export. No authentication on that port: bind it where only your scraper reaches. Unset: no /metrics.",
  ),
  MCP_METRICS_HOST: envString().describe(
    'Address the `/metrics` port binds (with MCP_METRICS_PORT). Default: MCP_HTTP_HOST.',
  ),
  MCP_OTEL_METRIC_ATTRIBUTES: envEnum(['required', 'recommended'], 'required').describe(
    "Attributes of the per-request metrics: `required`, the semantic conventions' required and conditionally required ones (mcp.method.name, gen_ai.tool.name or gen_ai.prompt.name, error.type, rpc.response.status_code); `recommended` adds gen_ai.operation.name, mcp.protocol.version and network.transport/.protocol.name/.protocol.version, at about 1 µs more per request.",
  ),
};
