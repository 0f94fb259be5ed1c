/**
 * The names our spans and metrics carry, after the OpenTelemetry semantic conventions for
 * MCP (GenAI conventions, `gen-ai/mcp.md`, status: development). Kept here rather than
 * imported from `@opentelemetry/semantic-conventions/incubating`, whose experimental
 * exports may be renamed in any minor release.
 */

export const Attr = {
  McpMethodName: 'mcp.method.name',
  McpProtocolVersion: 'mcp.protocol.version',
  McpSessionId: 'mcp.session.id',
  McpResourceUri: 'mcp.resource.uri',
  /**
   * The authenticated caller (API key id or token subject). The conventions define no
   * attribute for it; `mcp.client.id` keeps it next to the other `mcp.*` attributes.
   */
  McpClientId: 'mcp.client.id',
  GenAiToolName: 'gen_ai.tool.name',
  GenAiPromptName: 'gen_ai.prompt.name',
  GenAiOperationName: 'gen_ai.operation.name',
  JsonRpcRequestId: 'jsonrpc.request.id',
  RpcResponseStatusCode: 'rpc.response.status_code',
  NetworkTransport: 'network.transport',
  NetworkProtocolName: 'network.protocol.name',
  NetworkProtocolVersion: 'network.protocol.version',
  ClientAddress: 'client.address',
  ClientPort: 'client.port',
  ErrorType: 'error.type',
  HttpRequestMethod: 'http.request.method',
  HttpResponseStatusCode: 'http.response.status_code',
  HttpRoute: 'http.route',
  UrlPath: 'url.path',
  PluginName: 'mcp_toolkit.plugin',
} as const;

/** The instrumentation scope of the server's spans and metrics. */
export const SCOPE_NAME = 'mcp-toolkit';

export const Metric = {
  /** Histogram, seconds (conventions: `mcp.server.operation.duration`). */
  OperationDuration: 'mcp.server.operation.duration',
  /** Histogram, seconds (conventions: `mcp.server.session.duration`), 2025-wire sessions. */
  SessionDuration: 'mcp.server.session.duration',
  /** Counter of requests refused at the HTTP edge (401, 403, 413, 415, 429, 503, Host, Origin), ours. */
  Refusals: 'mcp.server.refusals',
  /** Counter of `isError` tool results, ours. */
  ToolErrors: 'mcp.server.tool_errors',
  /** Gauge of requests running now, ours (HTTP's conventions have `http.server.active_requests`). */
  ActiveRequests: 'mcp.server.active_requests',
  /** Gauge of 2025-wire sessions held, ours. */
  ActiveSessions: 'mcp.server.active_sessions',
  /** Gauge of event streams open, ours. */
  OpenStreams: 'mcp.server.open_streams',
} as const;

/** Bucket boundaries the conventions recommend for `mcp.server.operation.duration`. */
export const DURATION_BUCKETS_S: readonly number[] = Object.freeze([
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
]);

/** `mcp.server.operation.duration`'s description, wherever it is aggregated. */
export const DURATION_DESCRIPTION = 'Duration of MCP requests handled by the server.';

/** `error.type` of a tool result with `isError: true` (conventions). */
const TOOL_ERROR = 'tool_error';

/** `error.type`/method value standing for a name outside a known, bounded set. */
const OTHER = '_OTHER';

// Names arrive from clients; a span name or attribute must not carry megabytes.
const MAX_TARGET = 256;

/** Bounds a client-supplied name. */
export function boundTarget(target: string | undefined): string | undefined {
  return target === undefined || target.length <= MAX_TARGET ? target : target.slice(0, MAX_TARGET);
}

/**
 * The MCP methods a server receives, both wires (the conventions' well-known values plus
 * the 2026 methods and the tasks extension's). Any other name a client sends is `_OTHER` in
 * span names and metrics: names come from clients and must not mint new series.
 */
const KNOWN_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'server/discover',
  'subscriptions/listen',
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/update',
  'tasks/cancel',
]);

/** The method as span names and metrics carry it: itself when known, else `_OTHER`. */
export function boundedMethod(method: string): string {
  return KNOWN_METHODS.has(method) ? method : OTHER;
}

/**
 * Span name `{mcp.method.name} {target}`: the target only where the conventions name a
 * low-cardinality one (the tool of `tools/call`, the prompt of `prompts/get`) and only when it
 * names a registered tool or prompt (`known`); a resource URI goes into `mcp.resource.uri`.
 */
export function spanName(method: string, target: string | undefined, known: boolean): string {
  const m = boundedMethod(method);
  return known && target !== undefined && (m === 'tools/call' || m === 'prompts/get') ? `${m} ${target}` : m;
}

/**
 * `error.type` of an outcome: an explicit type first, then the JSON-RPC error code as a
 * string (conventions: "the error code as a string" for JSON-RPC errors), then
 * `tool_error` for an `isError` result.
 */
export function errorTypeOf(outcome: {
  error?: string;
  isError?: boolean;
  code?: number;
}): string | undefined {
  if (outcome.error !== undefined) return outcome.error;
  if (outcome.code !== undefined) return String(outcome.code);
  return outcome.isError === true ? TOOL_ERROR : undefined;
}
