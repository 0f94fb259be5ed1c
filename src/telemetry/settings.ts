/** The `MCP_*` settings of this area, merged into the one settings schema (src/config/settings.ts). */
import { z } from 'zod';
import { envBool, envString } from '../config/env-types.ts';

const URL_ERROR = 'expected an http(s) base URL such as http://127.0.0.1:4318';

/** An OTLP/HTTP base URL; blank means "unset" so `MCP_OTEL_ENDPOINT=` turns export off. */
const OTLP_ENDPOINT = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : v))
  .pipe(z.url({ protocol: /^https?$/, error: URL_ERROR }).optional());

export const telemetrySettingsShape = {
  MCP_LOG_TOOL_ARGS: envBool(false).describe(
    'Log tool arguments on the per-request line (values under secret-looking keys are redacted).',
  ),
  MCP_OTEL_ENDPOINT: OTLP_ENDPOINT.describe(
    'OTLP/HTTP base URL (e.g. http://127.0.0.1:4318); traces and metrics are exported only when set.',
  ),
  MCP_OTEL_SERVICE_NAME: envString('mcp-toolkit').describe('`service.name` of exported traces and metrics.'),
};
