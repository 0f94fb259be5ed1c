/**
 * The vocabulary both wires share: the 2026 envelope's `_meta` keys, reading a header, a
 * request's `_meta` or a client's input responses, and which revisions are stateless. Which wire a message is on, and each wire's rules, are the wire
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

/**
 * The client's answers by key, keeping only result objects: an answer of another type (a
 * number, null) counts as no answer, so the handler asks again (SEP-2322: validate
 * inputResponses). Undefined when nothing usable came back.
 */
export function wellFormedResponses(value: unknown): Record<string, JsonObject> | undefined {
  if (!isObject(value)) return undefined;
  const out: Record<string, JsonObject> = {};
  for (const [key, answer] of Object.entries(value)) if (isObject(answer)) out[key] = answer;
  return Object.keys(out).length > 0 ? out : undefined;
}
