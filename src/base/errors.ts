/**
 * The two error families (after the official SDK v2): protocol errors travel on the wire
 * with a numeric JSON-RPC code; internal errors carry a stable string code and never do.
 * Every code is defined here and nowhere else, and documented in docs/errors.md
 * (test/docs/errors-doc.test.ts fails when one is missing); the refusals built from them,
 * with their HTTP statuses, are in refusals.ts.
 */

/** JSON-RPC and MCP error codes. Edge codes (-32000 to -32099) are ours; see docs/errors.md. */
export const ErrorCode = {
  // JSON-RPC 2.0
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  // MCP 2026-07-28 (SEP-2243, SEP-2575)
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  // mcp-toolkit edge and lifecycle codes
  BadRequest: -32000,
  SessionNotFound: -32001,
  RequestTimeout: -32002,
  Unauthorized: -32030,
  Forbidden: -32031,
  HostNotAllowed: -32032,
  OriginNotAllowed: -32033,
  PayloadTooLarge: -32034,
  UnsupportedMediaType: -32035,
  NotAcceptable: -32036,
  MethodNotAllowed: -32037,
  RateLimited: -32038,
  ServiceUnavailable: -32039,
  TooManySessions: -32040,
  HeadersTooLarge: -32041,
  NotFound: -32042,
  TooManyStreams: -32043,
  RequestLost: -32044,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;
export type ErrorCodeValue = (typeof ErrorCode)[ErrorCodeName];

/**
 * An error that is sent to the client as a JSON-RPC error object.
 * `httpStatus` is data for the HTTP transport (stdio ignores it), so the dispatcher stays
 * transport-agnostic while 2026-wire rules such as "unknown method is HTTP 404" still hold.
 *
 * @example
 * throw new ProtocolError(ErrorCode.InvalidParams, 'Unknown tool: nope');
 */
export class ProtocolError extends Error {
  readonly code: number;
  readonly data: unknown;
  readonly httpStatus: number | undefined;
  /** Extra HTTP response headers the rule requires (`WWW-Authenticate`, `Retry-After`). */
  readonly httpHeaders: Readonly<Record<string, string>> | undefined;

  constructor(
    code: number,
    message: string,
    options: { data?: unknown; httpStatus?: number; httpHeaders?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ProtocolError';
    this.code = code;
    this.data = options.data;
    this.httpStatus = options.httpStatus;
    this.httpHeaders = options.httpHeaders;
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** Stable string codes of internal errors (never sent on the wire as such). */
export const InternalCode = {
  InvalidDefinition: 'ERR_MCP_INVALID_DEFINITION',
  DuplicateName: 'ERR_MCP_DUPLICATE_NAME',
  InvalidSetting: 'ERR_MCP_INVALID_SETTING',
  PluginNotFound: 'ERR_MCP_PLUGIN_NOT_FOUND',
  PluginInvalid: 'ERR_MCP_PLUGIN_INVALID',
  OutputInvalid: 'ERR_MCP_OUTPUT_INVALID',
  Timeout: 'ERR_MCP_TIMEOUT',
  Cancelled: 'ERR_MCP_CANCELLED',
  SessionClosed: 'ERR_MCP_SESSION_CLOSED',
  PathOutsideRoot: 'ERR_MCP_PATH_OUTSIDE_ROOT',
  UpstreamAuth: 'ERR_MCP_UPSTREAM_AUTH',
} as const;

export type InternalCodeValue = (typeof InternalCode)[keyof typeof InternalCode];

/**
 * An error inside the toolkit with a stable code callers can switch on.
 *
 * @example
 * if (err instanceof ToolkitError && err.code === InternalCode.DuplicateName) { ... }
 */
export class ToolkitError extends Error {
  readonly code: InternalCodeValue;
  constructor(code: InternalCodeValue, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolkitError';
    this.code = code;
  }
}

/**
 * The client answered a server-to-client request with a JSON-RPC error (it refused, or does
 * not support it). Not a ProtocolError: the call behind it decides what that means (a tool
 * reports it as an isError result, so the model sees the refusal).
 */
export class ClientAnswerError extends Error {
  readonly code: number;
  constructor(method: string, error: { code?: number; message?: string }) {
    super(
      `the client answered ${method} with an error: ${error.message ?? 'no message'} (${error.code ?? '?'})`,
    );
    this.name = 'ClientAnswerError';
    this.code = error.code ?? ErrorCode.InternalError;
  }
}
