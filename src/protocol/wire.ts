/**
 * The vocabulary both wires share: the 2026 envelope's `_meta` keys, and reading a header or
 * a request's `_meta`. Which wire a message is on, and each wire's rules, are the wire
 * profiles' (src/protocol/wires/).
 */

import { isObject, type JsonObject } from '../base/jsonrpc.ts';
import type { Headers } from '../base/types.ts';

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

export function header(headers: Headers | undefined, name: string): string | undefined {
  const v = headers?.[name];
  return (Array.isArray(v) ? v[0] : v)?.trim();
}

/** The request's `params._meta` when it is an object. */
export function metaOf(params: JsonObject | undefined): JsonObject | undefined {
  const meta = params?._meta;
  return isObject(meta) ? meta : undefined;
}
