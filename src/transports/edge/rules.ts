/**
 * The HTTP rules that do not depend on a framework, shared by the Fastify transport (this
 * folder) and the fetch handler (src/transports/fetch/): what an Accept or Content-Type header
 * allows, what a body costs the rate limiter, how a body is parsed, which refusal an auth or
 * parse failure becomes, and how a refusal is recorded (its span, count and log line).
 */
import type { Logger } from 'pino';
import { ErrorCode, ProtocolError } from '../../base/errors.ts';
import { parseMessage } from '../../base/json-ids.ts';
import { isObject } from '../../base/jsonrpc.ts';
import { Refusal } from '../../base/refusals.ts';
import type { Headers, Identity } from '../../base/types.ts';
import { markWithinDepth, scanJson } from '../../protocol/json-limits.ts';
import { requestLogLine } from '../../telemetry/logger.ts';
import type { HttpDeps } from '../deps.ts';

/** Whether an Accept header allows `type` (no header, or an empty one, allows anything). */
export function acceptAllows(accept: string | undefined, type: string): boolean {
  if (accept === undefined || accept === '') return true;
  return accept.includes(type) || accept.includes('*/*');
}

/** Whether a Content-Type names JSON (`application/json`, parameters such as charset allowed). */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  // What clients send, compared whole before anything is cut, trimmed or lower-cased.
  if (contentType === 'application/json') return true;
  const semi = contentType.indexOf(';');
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === 'application/json';
}

const isRequest = (m: unknown) => isObject(m) && typeof m.method === 'string' && 'id' in m;

/**
 * How many requests (things that cost a token) a body holds: notifications and posted
 * responses are free, alone or in a batch. A GET or DELETE (no body) costs one.
 */
export function requestCost(body: unknown): number {
  if (body === undefined || body === null) return 1;
  if (Array.isArray(body)) return body.filter(isRequest).length;
  return isRequest(body) ? 1 : 0;
}

/**
 * JSON.parse (`parseMessage`: an integer id past Number.MAX_SAFE_INTEGER kept as sent) with
 * Fastify's prototype-poisoning protection kept: a `__proto__` key, or a `constructor` key
 * holding `prototype`, is refused, however it was written (`"\u005f_proto__"` too: the walk
 * reads the keys as parsed). A reviver would slow every parse, so the keys are looked for by a
 * walk that does not recurse (a body nested 10,000 deep must not overflow the stack). Given
 * the dispatcher's nesting limit (MCP_MAX_JSON_DEPTH), the same walk measures the body against
 * it, and a body within it is marked so that the dispatcher does not walk it again; one
 * nested past it is left to the dispatcher to answer, after a walk of the whole body for the
 * refused keys. Throws a SyntaxError for text that is not JSON, an error with code
 * `MCP_POISON` for a refused key.
 */
export function parseBody(text: string, maxDepth?: number): unknown {
  const value: unknown = parseMessage(text);
  if (maxDepth === undefined) {
    refusePoison(value);
    return value;
  }
  const problem = scanJson(value, maxDepth, true);
  if (problem === undefined) markWithinDepth(value, maxDepth);
  else if (problem.kind === 'poison') throw poisoned(problem.key);
  else refusePoison(value);
  return value;
}

function refusePoison(value: unknown): void {
  const problem = scanJson(value, Number.POSITIVE_INFINITY, true);
  if (problem?.kind === 'poison') throw poisoned(problem.key);
}

const poisoned = (key: string) =>
  Object.assign(new Error(`the key "${key}" is not allowed`), { code: 'MCP_POISON' });

/** The -32700 refusal of a body `parseBody` (or an empty body) failed on. */
export function parseRefusal(err: { code?: unknown; message: string }): ProtocolError {
  return Refusal.bodyParseError(err.code === 'MCP_POISON' ? err.message : 'the body is not valid JSON');
}

/**
 * What an authenticator's failure answers: its own refusal (401, 403, 503), or, for anything
 * else (a bug, an issuer that broke in an unexpected way), 503 with the error in the log.
 */
export function authRefusal(err: unknown, logger: Pick<Logger, 'error'>): ProtocolError {
  if (err instanceof ProtocolError) return err;
  logger.error({ err }, 'authentication failed unexpectedly');
  return Refusal.authUnavailable();
}

/** `error.type` of a refusal by HTTP status. */
const REASONS: Readonly<Record<number, string>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'unavailable',
};

/** Refusals whose code says more than their status (a 403 for a foreign Host or Origin). */
const REASON_BY_CODE: Readonly<Record<number, string>> = {
  [ErrorCode.HostNotAllowed]: 'host_not_allowed',
  [ErrorCode.OriginNotAllowed]: 'origin_not_allowed',
  [ErrorCode.ParseError]: 'parse_error',
};

/** The `error.type` of a refusal with this status (undefined: a status that is not a refusal's). */
export function statusReason(status: number): string | undefined {
  return REASONS[status];
}

/** Statuses the dispatcher answers that still count as refusals (a tool's scope, a tool's limit). */
export function isDispatchedRefusal(status: number): boolean {
  return status === 401 || status === 403 || status === 429;
}

/** What recording a refusal needs. */
export type RefusalDeps = Pick<HttpDeps, 'telemetry' | 'logger'>;

/** What is known of a refused HTTP request, whichever framework received it. */
export interface RefusedRequest {
  readonly httpMethod: string;
  /** The body, once it was read (its JSON-RPC method goes on the span). */
  readonly body?: unknown;
  readonly headers: Headers;
  readonly address?: string | undefined;
  readonly port?: number | undefined;
  readonly httpVersion?: string | undefined;
  readonly identity?: Identity | undefined;
  /** How long ago the request arrived, in ms. */
  readonly elapsedMs: number;
}

/** A refusal's span (in the caller's trace), count and log line. */
export function recordRefusal(
  deps: RefusalDeps,
  req: RefusedRequest,
  status: number,
  error: { code?: number | undefined; message?: string | undefined },
): void {
  const reason =
    (error.code !== undefined ? REASON_BY_CODE[error.code] : undefined) ?? REASONS[status] ?? 'refused';
  const body = req.body;
  const trace = deps.telemetry.recordRefusal({
    httpMethod: req.httpMethod,
    status,
    reason,
    message: error.message ?? `HTTP ${status}`,
    method: isObject(body) && typeof body.method === 'string' ? body.method : undefined,
    headers: req.headers,
    address: req.address,
    port: req.port,
    httpVersion: req.httpVersion,
    clientId: req.identity?.clientId,
    startTime: Date.now() - req.elapsedMs,
  });
  requestLogLine(
    deps.logger,
    { method: `HTTP ${req.httpMethod}`, identity: req.identity },
    { outcome: 'refused', durationMs: req.elapsedMs, trace },
  );
}
