/**
 * The vocabulary both wires share: the 2026 envelope's `_meta` keys, and reading a header or
 * a request's `_meta`. Which wire a message is on, and each wire's rules, are the wire
 * profiles' (src/protocol/wires/).
 */

import { isObject, type JsonObject } from '../../base/jsonrpc.ts';
import { META } from '../../base/meta-keys.ts';
import type { Headers } from '../../base/types.ts';
import { SUPPORTED_VERSIONS, VERSION_2026 } from '../../base/versions.ts';

export { META };

/**
 * The official SDK treats any version string that sorts at or after 2026-07-28 as the
 * stateless wire (a plain string comparison); the conformance suite relies on that when it
 * probes unsupported versions such as `v999.0.0`.
 */
export function isStatelessVersion(version: string): boolean {
  return version >= VERSION_2026;
}

/** The stateless revisions we speak, oldest first: what a 2026-style envelope may name. */
export const STATELESS_VERSIONS: readonly string[] = Object.freeze(
  SUPPORTED_VERSIONS.filter(isStatelessVersion),
);

export function header(headers: Headers | undefined, name: string): string | undefined {
  const v = headers?.[name];
  return (Array.isArray(v) ? v[0] : v)?.trim();
}

/** The request's `params._meta` when it is an object. */
export function metaOf(params: JsonObject | undefined): JsonObject | undefined {
  const meta = params?._meta;
  return isObject(meta) ? meta : undefined;
}
