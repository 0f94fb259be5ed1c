/**
 * The vocabulary both wires share: the 2026 envelope's `_meta` keys, and reading a header or
 * a request's `_meta`. Which wire a message is on, and each wire's rules, are the wire
 * profiles' (src/protocol/wires/).
 */

import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { META } from '../../base/meta-keys.ts';
import type { Headers } from '../../base/types.ts';

export { META };

export function header(headers: Headers | undefined, name: string): string | undefined {
  const v = headers?.[name];
  return (Array.isArray(v) ? v[0] : v)?.trim();
}

/** The request's `params._meta` when it is an object. */
export function metaOf(params: JsonObject | undefined): JsonObject | undefined {
  const meta = params?._meta;
  return isObject(meta) ? meta : undefined;
}
