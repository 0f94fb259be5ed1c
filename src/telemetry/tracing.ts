/**
 * One OpenTelemetry server span per MCP request, the operation-duration histogram and
 * refusal / tool-error counts, exported over OTLP/HTTP (protobuf) when an endpoint is set.
 *
 * Without an endpoint nothing is loaded: the OpenTelemetry SDK and exporters take ~0.5 s
 * to import (measured on Node 24), which a stdio server spawned by a desktop agent should
 * not pay for nothing. So `createTelemetry` is async and imports the SDK only when enabled,
 * and the disabled implementation is a shared object whose methods do nothing.
 */
import { InternalCode, ToolkitError } from '../protocol/errors.ts';

/** What the dispatcher knows about a request when it starts handling it. */
export interface RequestSpanInfo {
  /** JSON-RPC method, e.g. `tools/call`. */
  readonly method: string;
  /** Tool name (`tools/call`), prompt name (`prompts/get`) or resource URI (`resources/read`). */
  readonly target?: string;
  readonly requestId?: string | number;
  readonly sessionId?: string;
  readonly protocolVersion?: string;
  /** The authenticated caller: API key id or token subject (attribute `mcp.client.id`). */
  readonly clientId?: string;
  /** W3C `traceparent` from `params._meta`: the span becomes its child. */
  readonly traceparent?: unknown;
  /** W3C `tracestate` from `params._meta`. */
  readonly tracestate?: unknown;
  readonly transport: 'stdio' | 'http';
}

/** How a request ended. */
export interface SpanOutcome {
  /** An explicit `error.type` (e.g. `timeout`, `cancelled`); wins over the two below. */
  readonly error?: string;
  /** The tool result had `isError: true`: `error.type=tool_error`. */
  readonly isError?: boolean;
  /** The JSON-RPC error code of a protocol error: `error.type` is its string. */
  readonly code?: number;
}

export type SpanAttributeValue = string | number | boolean | readonly string[] | readonly number[];

/** The span of one request. `end` is idempotent. */
export interface RequestSpan {
  /** Hex trace id, for the request's log line; `undefined` when telemetry is off. */
  readonly traceId: string | undefined;
  setAttribute(key: string, value: SpanAttributeValue): void;
  end(outcome: SpanOutcome): void;
}

export interface Telemetry {
  /** `false` for the no-op implementation (no endpoint configured). */
  readonly enabled: boolean;
  /** Call at request entry (after parsing, before dispatching); end it with the outcome. */
  startRequestSpan(info: RequestSpanInfo): RequestSpan;
  /** Count a request refused at the edge, e.g. `(429, 'rate_limited')`. `reason` must be a fixed string. */
  recordRefusal(status: number, reason: string): void;
  /** Flushes spans and metrics, then stops exporting. Idempotent. */
  shutdown(): Promise<void>;
}

export interface TelemetryOptions {
  /** `MCP_OTEL_ENDPOINT`: OTLP/HTTP base URL; `/v1/traces` and `/v1/metrics` are appended. */
  readonly endpoint?: string | undefined;
  /** `MCP_OTEL_SERVICE_NAME`. */
  readonly serviceName: string;
  readonly serviceVersion: string;
  /** Metric export interval; default 60 000 ms (the OpenTelemetry default). */
  readonly exportIntervalMs?: number;
  /** Span batch delay; default 5 000 ms (the OpenTelemetry default). */
  readonly spanDelayMs?: number;
  /**
   * `MCP_OTEL_SAMPLE_RATIO`: the share of root traces recorded, 0 to 1; default 1 (all). A
   * request whose `traceparent` says sampled (or not) follows its caller.
   */
  readonly sampleRatio?: number;
  /**
   * Told when exports start failing (once per failing streak, again after a success), so
   * a collector outage shows in the logs instead of passing silently.
   */
  readonly onExportError?: (signal: 'traces' | 'metrics', error: Error | undefined) => void;
}

/** The span of disabled telemetry: one shared object that records nothing. */
export const NOOP_SPAN: RequestSpan = Object.freeze({
  traceId: undefined,
  setAttribute(): void {},
  end(): void {},
});

const RESOLVED = Promise.resolve();

/** Telemetry that records nothing; every call returns at once and allocates nothing. */
export const NOOP_TELEMETRY: Telemetry = Object.freeze({
  enabled: false,
  startRequestSpan: (): RequestSpan => NOOP_SPAN,
  recordRefusal(): void {},
  shutdown: (): Promise<void> => RESOLVED,
});

/**
 * Creates the server's telemetry: the no-op one without an endpoint, else our own request
 * spans and a private meter provider, exporting OTLP/HTTP protobuf (no global is
 * registered, so several can coexist). Options are checked at once.
 *
 * @example
 * const telemetry = await createTelemetry({ endpoint: settings.MCP_OTEL_ENDPOINT,
 *   serviceName: settings.MCP_OTEL_SERVICE_NAME, serviceVersion: '0.1.0' });
 * const span = telemetry.startRequestSpan({ method: 'tools/call', target: 'read_file', transport: 'stdio' });
 * span.end({ isError: false });
 * await telemetry.shutdown();
 */
export async function createTelemetry(options: TelemetryOptions): Promise<Telemetry> {
  if (options.endpoint === undefined || options.endpoint === '') return NOOP_TELEMETRY;
  let url: URL;
  try {
    url = new URL(options.endpoint);
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolkitError(
      InternalCode.InvalidSetting,
      `OTLP endpoint "${options.endpoint}" is not an http(s) URL such as http://127.0.0.1:4318`,
    );
  }
  const ratio = options.sampleRatio;
  if (ratio !== undefined && !(ratio >= 0 && ratio <= 1)) {
    throw new ToolkitError(InternalCode.InvalidSetting, `sampleRatio must be from 0 to 1, got ${ratio}`);
  }
  if (options.serviceName.trim() === '') {
    throw new ToolkitError(InternalCode.InvalidSetting, 'OpenTelemetry service name is empty');
  }
  for (const [name, value] of [
    ['exportIntervalMs', options.exportIntervalMs],
    ['spanDelayMs', options.spanDelayMs],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
      throw new ToolkitError(InternalCode.InvalidSetting, `${name} must be a positive integer, got ${value}`);
    }
  }
  const { createOtlpTelemetry } = await import('./otlp-telemetry.ts');
  return createOtlpTelemetry({ ...options, endpoint: options.endpoint.replace(/\/+$/, '') });
}
