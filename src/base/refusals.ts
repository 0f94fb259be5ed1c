/**
 * Every refusal the server makes before (or instead of) handling a message, one factory each,
 * keeping its JSON-RPC code, its HTTP status and its message together (as fastify's
 * `lib/errors.js` keeps code, message and status): the HTTP edge, the stdio transport, the rate
 * limiter and the shared stores build their refusals here and nowhere else, so a status or a
 * wording is changed in one place. Each returns a ProtocolError; the HTTP transport sends its
 * `httpStatus` and `httpHeaders`, stdio ignores them. Codes are documented in docs/errors.md.
 */
import { ErrorCode, ProtocolError } from './errors.ts';

function refusal(
  code: number,
  httpStatus: number | undefined,
  message: string,
  options: { data?: unknown; httpHeaders?: Record<string, string> } = {},
): ProtocolError {
  return httpStatus === undefined
    ? new ProtocolError(code, message, options)
    : new ProtocolError(code, message, { ...options, httpStatus });
}

/**
 * @example
 * throw Refusal.sessionNotFound(); // -32001, HTTP 404
 */
export const Refusal = Object.freeze({
  // ---- DNS rebinding (Host and Origin allow-lists) ----
  hostNotAllowed: (host: string | undefined) =>
    refusal(
      ErrorCode.HostNotAllowed,
      403,
      `Host not allowed: ${host ?? '(none)'}; add it to MCP_ALLOWED_HOSTS`,
    ),
  originNotAllowed: (origin: string | undefined) =>
    refusal(ErrorCode.OriginNotAllowed, 403, `Origin not allowed: ${origin}; add it to MCP_ALLOWED_ORIGINS`),

  // ---- the request itself ----
  bodyTooLarge: (maxBytes: number) =>
    refusal(
      ErrorCode.PayloadTooLarge,
      413,
      `Request body too large: at most ${maxBytes} bytes (MCP_MAX_BODY_BYTES)`,
    ),
  unsupportedMediaType: () =>
    refusal(ErrorCode.UnsupportedMediaType, 415, 'Unsupported Content-Type: send application/json'),
  /** `detail` says why: the body is not JSON, or a key prototype-poisoning protection refuses. */
  bodyParseError: (detail: string) => refusal(ErrorCode.ParseError, 400, `Parse error: ${detail}`),
  notAcceptable: () =>
    refusal(
      ErrorCode.NotAcceptable,
      406,
      'Not acceptable: the Accept header must allow application/json and text/event-stream',
    ),
  listenNeedsEventStream: () =>
    refusal(
      ErrorCode.NotAcceptable,
      406,
      'Not acceptable: subscriptions/listen answers with an event stream; accept text/event-stream',
    ),
  streamNeedsEventStream: () =>
    refusal(ErrorCode.NotAcceptable, 406, 'Not acceptable: a GET stream needs Accept: text/event-stream'),
  methodNotAllowed: () =>
    refusal(ErrorCode.MethodNotAllowed, 405, 'Method not allowed: use POST, GET or DELETE', {
      httpHeaders: { allow: 'GET, POST, DELETE' },
    }),
  /** A host that keeps no 2025-wire sessions (a fetch handler with `sessions: 'stateless'`): GET and DELETE have none to serve. */
  statelessMethodNotAllowed: (method: string) =>
    refusal(
      ErrorCode.MethodNotAllowed,
      405,
      method === 'GET' || method === 'DELETE'
        ? `Method not allowed: ${method} opens a stream or ends a session of the 2025 wire, and this endpoint keeps no sessions: use POST`
        : `Method not allowed: ${method}; this endpoint answers POST only`,
      { httpHeaders: { allow: 'POST' } },
    ),
  unsupportedProtocolVersion: (version: string, supported: readonly string[]) =>
    refusal(
      ErrorCode.BadRequest,
      400,
      `Unsupported MCP-Protocol-Version: ${version} (supported: ${supported.join(', ')})`,
    ),
  /** A path the server does not serve. */
  notFound: (method: string, path: string, mcpPath: string) =>
    refusal(ErrorCode.NotFound, 404, `Not found: ${method} ${path}; the MCP endpoint is ${mcpPath}`),

  // ---- what Node's HTTP parser refuses (answered on the raw socket) ----
  headersTooLarge: () =>
    refusal(
      ErrorCode.HeadersTooLarge,
      431,
      'Request headers too large: at most 16 KB in all; send fewer or shorter headers',
    ),
  requestTimeout: () =>
    refusal(
      ErrorCode.RequestTimeout,
      408,
      'Request timeout: the request did not arrive in time; send it again',
    ),
  badHttpRequest: () =>
    refusal(ErrorCode.BadRequest, 400, 'Bad request: the HTTP request could not be parsed'),

  // ---- 2025-wire sessions ----
  sessionRequired: () =>
    refusal(
      ErrorCode.BadRequest,
      400,
      'Bad request: the Mcp-Session-Id header is required (send initialize first)',
    ),
  sessionNotFound: () =>
    refusal(
      ErrorCode.SessionNotFound,
      404,
      'Session not found: it expired or was deleted; initialize a new one',
    ),
  tooManySessions: () => refusal(ErrorCode.TooManySessions, 503, 'Too many open sessions: try again later'),
  /** 409 as the official SDK answers a second standalone stream; ours allows `max`. */
  tooManyStreams: (max: number) =>
    refusal(
      ErrorCode.TooManyStreams,
      409,
      `Conflict: this session already has ${max} open GET streams (MCP_MAX_STREAMS_PER_SESSION); close one, or resume one with Last-Event-ID`,
    ),

  /**
   * A fresh GET while the session's standalone stream is open (here or on another replica):
   * MCP 2025-11-25 "Multiple Connections" has each message sent on one stream only, so a
   * session has one standalone stream; 409 as the official SDK's server answers it.
   */
  standaloneStreamOpen: () =>
    refusal(
      ErrorCode.TooManyStreams,
      409,
      'Conflict: a standalone GET stream is already open for this session; use that one, or resume it with Last-Event-ID (a resume takes it over)',
    ),

  tooManyListenStreams: (max: number) =>
    refusal(
      ErrorCode.TooManyStreams,
      409,
      `Conflict: this caller already has ${max} open subscriptions/listen streams (MCP_MAX_LISTEN_STREAMS); close one first`,
    ),

  // ---- limits and availability ----
  /** `what` names whose bucket is empty: `this client`, `tool add`. */
  rateLimited: (what: string, retryAfterMs: number) => {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    return refusal(ErrorCode.RateLimited, 429, `Rate limit exceeded for ${what}: retry after ${seconds} s`, {
      httpHeaders: { 'retry-after': String(seconds) },
      data: { retryAfterMs },
    });
  },
  rateLimitStoreUnavailable: () =>
    refusal(
      ErrorCode.ServiceUnavailable,
      503,
      'Service unavailable: the rate-limit store cannot be reached; retry shortly',
    ),
  /** A shared store (Redis) cannot be reached: 503 with Retry-After (RFC 9110 §10.2.3). */
  storeUnavailable: (what: string) =>
    refusal(
      ErrorCode.ServiceUnavailable,
      503,
      `Service unavailable: ${what} (Redis) cannot be reached; retry shortly`,
      { httpHeaders: { 'retry-after': '1' } },
    ),
  authUnavailable: () =>
    refusal(ErrorCode.ServiceUnavailable, 503, 'Authentication is unavailable; retry shortly'),
  shuttingDown: () =>
    refusal(
      ErrorCode.ServiceUnavailable,
      503,
      'Service unavailable: the server is shutting down; retry on another replica',
    ),
  /** A request still running when a drain's time ran out: stopped, and answered with this. */
  cutOffByShutdown: () =>
    refusal(
      ErrorCode.ServiceUnavailable,
      503,
      'Service unavailable: the server is shutting down and stopped this request before it finished (it may have been partly carried out); retry on another replica',
    ),
  /** A failure of ours at the edge; the details are in the server log. */
  internal: () => refusal(ErrorCode.InternalError, 500, 'Internal error: see the server logs'),

  // ---- stdio (no HTTP status: the line is answered on stdout) ----
  lineTooLarge: (maxBytes: number) =>
    refusal(
      ErrorCode.PayloadTooLarge,
      undefined,
      `Message too large: a line may hold at most ${maxBytes} bytes`,
    ),
  lineParseError: () => refusal(ErrorCode.ParseError, undefined, 'Parse error: the line is not valid JSON'),
});
