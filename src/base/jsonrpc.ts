/** JSON-RPC 2.0 message shapes and the helpers that build and recognise them. */
import { ErrorCode, ProtocolError } from './errors.ts';
import { type BigId, isBigId } from './json-ids.ts';

/**
 * A request id as sent: a string, a number, or an integer past Number.MAX_SAFE_INTEGER kept
 * as its digits (`BigId`, from `parseMessage` in json-ids.ts), which serialises as sent.
 */
export type RequestId = string | number | BigId;
export type JsonObject = Record<string, unknown>;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: JsonObject;
}
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonObject;
}
export interface JsonRpcSuccess {
  jsonrpc: '2.0';
  id: RequestId;
  result: JsonObject;
}
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}
export interface JsonRpcFailure {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: JsonRpcErrorObject;
}
export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/**
 * A value a client sent, as text for a message or a lookup key. Never throws: `String()` and
 * template literals do on an object whose `toString` is not a function (`{"toString": "x"}`).
 */
export function safeText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return String(value);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '[unprintable]';
  }
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) || isBigId(value);
}

/** What kind of message a parsed value is; `invalid` carries the reason and any usable id. */
export type Classified =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; id: RequestId | null; reason: string };

/** Checks the JSON-RPC 2.0 envelope of one message (not an array). */
export function classify(value: unknown): Classified {
  if (!isObject(value)) return { kind: 'invalid', id: null, reason: 'A JSON-RPC message must be an object' };
  const id = isId(value.id) ? value.id : null;
  if (value.jsonrpc !== '2.0') return { kind: 'invalid', id, reason: 'jsonrpc must be "2.0"' };
  if ('method' in value) {
    if (typeof value.method !== 'string') return { kind: 'invalid', id, reason: 'method must be a string' };
    if ('params' in value && !isObject(value.params)) {
      return { kind: 'invalid', id, reason: 'params must be an object when present' };
    }
    if (!('id' in value)) return { kind: 'notification', message: value as unknown as JsonRpcNotification };
    if (!isId(value.id)) return { kind: 'invalid', id: null, reason: 'id must be a string or a number' };
    return { kind: 'request', message: value as unknown as JsonRpcRequest };
  }
  if ('result' in value || 'error' in value) {
    if ('result' in value && 'error' in value) {
      return { kind: 'invalid', id, reason: 'a response carries result or error, never both' };
    }
    if (!isId(value.id) && !('error' in value && value.id === null)) {
      return { kind: 'invalid', id: null, reason: 'a response must echo a request id' };
    }
    return { kind: 'response', message: value as unknown as JsonRpcResponse };
  }
  return { kind: 'invalid', id, reason: 'not a request, notification or response' };
}

export function success(id: RequestId, result: JsonObject): JsonRpcSuccess {
  return { jsonrpc: '2.0', id, result };
}

export function failure(id: RequestId | null, error: JsonRpcErrorObject): JsonRpcFailure {
  return { jsonrpc: '2.0', id, error };
}

export function errorResponse(id: RequestId | null, err: ProtocolError): JsonRpcFailure {
  return failure(id, err.toJSON());
}

export function notification(method: string, params?: JsonObject): JsonRpcNotification {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

/** Told when an outgoing message cannot be serialised: what was sent instead, or dropped. */
export type EncodeFailure = (err: unknown, message: JsonRpcMessage, outcome: 'replaced' | 'dropped') => void;

/**
 * An `EncodeFailure` that logs what happened, with the message's id or method.
 *
 * @example
 * const line = encodeMessage(message, logEncodeFailure(logger));
 */
export function logEncodeFailure(logger: { error(fields: object, message: string): void }): EncodeFailure {
  return (err, message, outcome) =>
    logger.error(
      {
        err,
        id: 'id' in message ? message.id : undefined,
        method: 'method' in message ? message.method : undefined,
      },
      outcome === 'dropped'
        ? 'an outgoing message could not be serialised as JSON and was dropped'
        : 'a result could not be serialised as JSON; the client got an internal error instead',
    );
}

/**
 * Serialises an outgoing message (or batch) and never throws. A value JSON cannot carry (a
 * BigInt, a cycle, a throwing `toJSON`, nesting past V8's stack) must not take the process
 * down: a response becomes a -32603 error for its id, a notification or server-to-client
 * request is dropped, and `onFailure` is told which (so the transport can log it).
 *
 * @example
 * write(`${encodeMessage(message, (err) => logger.error({ err }, 'unserialisable'))}\n`);
 */
export function encodeMessage(
  message: JsonRpcMessage | JsonRpcMessage[],
  onFailure?: EncodeFailure,
): string | undefined {
  try {
    return JSON.stringify(message);
  } catch (err) {
    if (Array.isArray(message)) {
      const parts = message
        .map((m) => encodeMessage(m, onFailure))
        .filter((p): p is string => p !== undefined);
      return parts.length === 0 ? undefined : `[${parts.join(',')}]`;
    }
    if ('method' in message) {
      onFailure?.(err, message, 'dropped');
      return undefined;
    }
    onFailure?.(err, message, 'replaced');
    return JSON.stringify(
      errorResponse(
        message.id,
        new ProtocolError(
          ErrorCode.InternalError,
          'Internal error: the result could not be serialised as JSON',
        ),
      ),
    );
  }
}
