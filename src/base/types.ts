/**
 * The vocabulary every layer shares: who is calling, which wire a request is on, the log
 * levels of the protocol, and what a handler may see of an HTTP request. Types and constants
 * only; nothing here imports anything of ours.
 */
import type { JsonObject } from './jsonrpc.ts';

/** Who is calling: filled by the auth layer (API key id or token subject), absent when auth is off. */
export interface Identity {
  /** Stable client id: the API key's id, or the token's client id / subject. */
  clientId: string;
  /** A human-readable name of the client: an API key's `name` in `MCP_API_KEYS_FILE`. */
  clientName?: string;
  subject?: string;
  scopes: readonly string[];
  /** Verified token claims, when the identity comes from an OAuth token. */
  claims?: JsonObject;
}

/** The protocol generation a request arrived on. */
export type Wire = '2025' | '2026';

/**
 * The log levels of `notifications/message`, least severe first (RFC 5424 names, as the spec
 * uses them): the one list that `logging/setLevel`, the 2026 envelope and the client-log
 * threshold read.
 */
export const LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];

/** Whether a value names a log level. */
export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** A level's severity rank (debug 0 ... emergency 7), for threshold comparisons. */
export function logLevelRank(level: LogLevel): number {
  return LOG_LEVELS.indexOf(level);
}

/** Lower-case header names to values, as Node's http module gives them. */
export type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** What a handler may see of the HTTP request: never its credentials. */
export interface HttpRequestInfo {
  readonly method: string;
  /** The URL path, without the query string. */
  readonly path: string;
  /** Lower-case names; `Authorization`, `Cookie`, `X-API-Key` and secret-looking names removed. */
  readonly headers: Readonly<Record<string, string>>;
}
